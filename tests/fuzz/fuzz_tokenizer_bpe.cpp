// libFuzzer target: arbitrary bytes through the tokenizers. The first byte picks a vocabulary
// (byte-level BPE with three pre-tokenizer presets, or SentencePiece) and a mode; the rest is text
// or, in the id mode, little-endian 16-bit token ids. Invariants checked (a violation aborts):
//  - encode never yields an id outside the vocabulary or a control id (text is only ever text);
//  - BPE: decode(encode(x)) == x for well-formed UTF-8 x (and == utf8::sanitize(x) otherwise);
//  - decode always gives well-formed UTF-8, and StreamDecoder's pushes + flush equal decode;
//  - an id outside the vocabulary is an Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/fuzz/small_vocabs.h"

namespace {

using namespace snapdoc;

void check(bool ok) {
    if (!ok) std::abort();
}

const Tokenizer& vocabulary(int which) {
    static const Tokenizer llama = fuzzing::small_bpe_tokenizer("llama-bpe");
    static const Tokenizer qwen = fuzzing::small_bpe_tokenizer("qwen2");
    static const Tokenizer gpt2 = fuzzing::small_bpe_tokenizer("gpt-2");
    static const Tokenizer spm = fuzzing::small_spm_tokenizer();
    switch (which) {
        case 0: return llama;
        case 1: return qwen;
        case 2: return gpt2;
        default: return spm;
    }
}

std::string stream_decode(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    StreamDecoder d(tok);
    std::string out;
    for (int32_t id : ids) out += d.push(id);
    out += d.flush();
    return out;
}

void check_decoding(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    const std::string text = tok.decode(ids);
    check(utf8::is_valid(text));
    check(stream_decode(tok, ids) == text);
    for (int32_t id : ids) (void)tok.piece(id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const Tokenizer& tok = vocabulary(data[0] & 3);
    const bool id_mode = (data[0] & 4) != 0;
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    if (id_mode) {
        std::vector<int32_t> ids;
        bool out_of_range = false;
        for (std::size_t i = 0; i + 1 < rest.size(); i += 2) {
            const int32_t id = static_cast<int32_t>(static_cast<uint8_t>(rest[i]) |
                                                    (static_cast<uint8_t>(rest[i + 1]) << 8)) - 16;
            out_of_range = out_of_range || id < 0 || id >= tok.vocab_size();
            ids.push_back(id);
        }
        if (out_of_range) {
            bool threw = false;
            try {
                (void)tok.decode(ids);
            } catch (const Error&) {
                threw = true;
            }
            check(threw);
            return 0;
        }
        check_decoding(tok, ids);
        return 0;
    }
    const std::vector<int32_t> ids = tok.encode(rest);
    for (int32_t id : ids) {
        check(id >= 0 && id < tok.vocab_size());
        check(!tok.is_control(id));
    }
    check_decoding(tok, ids);
    if (tok.kind() == TokenizerKind::ByteLevelBpe) check(tok.decode(ids) == utf8::sanitize(rest));
    return 0;
}
