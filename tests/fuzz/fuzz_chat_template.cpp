// libFuzzer target: arbitrary system prompt, document and question through every chat template,
// on a byte-level BPE and a SentencePiece vocabulary that have every template's control tokens.
// Input layout: byte 0 picks the vocabulary, bytes 1-2 and 3-4 are the lengths of the system
// prompt and the document (clamped), the rest is the question. Invariants (a violation aborts):
//  - building either succeeds or throws Error (an empty document or question);
//  - the control ids of the prompt are exactly those of the same template with placeholder text
//    ("S"/"D"/"Q"): text can never add, drop or reorder a control token;
//  - build_document_prompt is build_document_part + build_question_part.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <tuple>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/fuzz/small_vocabs.h"

namespace {

using namespace snapdoc;

void check(bool ok) {
    if (!ok) std::abort();
}

std::vector<int32_t> controls(const Tokenizer& tok, const DocumentPrompt& p) {
    std::vector<int32_t> out;
    for (const auto* part : {&p.document_part, &p.question_part})
        for (int32_t id : *part) {
            check(id >= 0 && id < tok.vocab_size());
            if (tok.is_control(id)) out.push_back(id);
        }
    return out;
}

// Control ids of the placeholder prompt, computed once per (template, vocabulary, system prompt).
const std::vector<int32_t>& placeholder_controls(ChatTemplateKind kind, const Tokenizer& tok, bool with_system) {
    static std::map<std::tuple<int, const Tokenizer*, bool>, std::vector<int32_t>> cache;
    const auto key = std::make_tuple(static_cast<int>(kind), &tok, with_system);
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache.emplace(key, controls(tok, build_document_prompt(kind, tok, with_system ? "S" : "", "D", "Q"))).first;
    return it->second;
}

std::size_t take_length(const uint8_t* d, std::size_t avail) {
    return std::min<std::size_t>(static_cast<std::size_t>(d[0] | (d[1] << 8)), avail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 5) return 0;
    static const Tokenizer bpe = fuzzing::small_bpe_tokenizer("llama-bpe");
    static const Tokenizer spm = fuzzing::small_spm_tokenizer();
    const Tokenizer& tok = (data[0] & 1) ? spm : bpe;
    const char* text = reinterpret_cast<const char*>(data + 5);
    std::size_t avail = size - 5;
    const std::size_t sys_len = take_length(data + 1, avail);
    const std::string_view system(text, sys_len);
    avail -= sys_len;
    const std::size_t doc_len = take_length(data + 3, avail);
    const std::string_view document(text + sys_len, doc_len);
    const std::string_view question(text + sys_len + doc_len, avail - doc_len);

    for (std::string_view name : chat_template_names()) {
        const ChatTemplateKind kind = parse_chat_template_name(name);
        DocumentPrompt p;
        try {
            p = build_document_prompt(kind, tok, system, document, question);
        } catch (const Error&) {
            continue;
        }
        // Parts built separately are the same ids.
        check(build_document_part(kind, tok, system, document) == p.document_part);
        check(build_question_part(kind, tok, question) == p.question_part);
        // Same control ids as a placeholder prompt with or without a system prompt (whichever the
        // fuzzed one trims to).
        const std::vector<int32_t> got = controls(tok, p);
        const bool matches_with = got == placeholder_controls(kind, tok, true);
        const bool matches_without = got == placeholder_controls(kind, tok, false);
        check(matches_with || matches_without);
        (void)end_of_turn_ids(kind, tok);
    }
    return 0;
}
