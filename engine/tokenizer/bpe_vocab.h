// A byte-level BPE vocabulary as model files describe it (GGUF `tokenizer.ggml.model = "gpt2"`,
// or a Hugging Face tokenizer.json with a ByteLevel BPE model): what BpeTokenizer is built from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace snapdoc {

struct BpeVocab {
    // Token texts as stored: byte-level text (GPT-2's byte <-> Unicode mapping, "Ġthe") for normal
    // tokens, plain text for added ones ("<|eot_id|>", "<tool_call>").
    std::vector<std::string> tokens;
    std::vector<int32_t> types;  // GgufTokenType values per token; empty = all Normal
    // Merge rules in rank order (rank = index): the two token texts that join.
    std::vector<std::pair<std::string, std::string>> merges;
    // The pre-tokenizer: explicit regexes (from tokenizer.json), or else the preset named by
    // `pre` (GGUF tokenizer.ggml.pre; see pretokenizer.h).
    std::string pre;
    std::vector<std::string> regexes;
    std::optional<bool> ignore_merges;  // unset: the preset's
    int32_t bos_id = -1;
    int32_t eos_id = -1;
    int32_t unk_id = -1;
    int32_t pad_id = -1;
    std::optional<bool> add_bos;  // unset: the preset's (llama.cpp's defaults)
    std::optional<bool> add_eos;  // unset: false
};

}  // namespace snapdoc
