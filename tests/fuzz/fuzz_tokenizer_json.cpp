// libFuzzer target: arbitrary bytes as a Hugging Face tokenizer.json (optionally followed by a
// tokenizer_config.json after a NUL byte). Parsing must succeed or throw snapdoc::Error; a parsed
// vocabulary is built into a tokenizer (again: success or Error), which then encodes and decodes
// a short mixed text, with the invariants of fuzz_tokenizer_bpe (ids in range, no control ids,
// stream decoding equals decode). encode may throw Error too: a byte-level vocabulary without a
// token for some byte and without an unknown token cannot encode text with that byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/tokenizer/hf_tokenizer_json.h"
#include "engine/tokenizer/tokenizer.h"

namespace {

using namespace snapdoc;

void check(bool ok) {
    if (!ok) std::abort();
}

void exercise(const Tokenizer& tok) {
    static const std::string_view kText = "Hello <tool> w\xC3\xA9rld\n\n<|endoftext|> 123 \xF0\x9F\x98\x80!";
    std::vector<int32_t> ids;
    try {
        ids = tok.encode(kText);
    } catch (const Error&) {
        return;
    }
    for (int32_t id : ids) {
        check(id >= 0 && id < tok.vocab_size());
        check(!tok.is_control(id));
    }
    const std::string text = tok.decode(ids);
    StreamDecoder d(tok);
    std::string streamed;
    for (int32_t id : ids) streamed += d.push(id);
    streamed += d.flush();
    check(streamed == text);
    (void)tok.bos_id();
    (void)tok.eos_id();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = all.find('\0');
    const std::string_view json = all.substr(0, nul);
    const std::string_view config = nul == std::string_view::npos ? std::string_view{} : all.substr(nul + 1);
    std::optional<HfTokenizerJson> hf;
    try {
        hf = parse_hf_tokenizer_json(json, config);
    } catch (const Error&) {
        return 0;
    }
    std::optional<Tokenizer> tok;
    try {
        if (hf->bpe) tok = Tokenizer::from_bpe_vocab(*hf->bpe);
        else if (!hf->spm_proto.empty()) tok = Tokenizer::from_serialized_proto(hf->spm_proto);
    } catch (const Error&) {
        return 0;
    }
    if (tok) exercise(*tok);
    return 0;
}
