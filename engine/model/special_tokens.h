// The token ids that end generation. A model names several: GGUF has eos, eot (end of turn) and
// eom (end of message, Llama 3.1 tool calls); Hugging Face lists them in config.json and
// generation_config.json (Llama 3.1: 128001, 128008, 128009). Instruct models often end a turn
// with a token that is not "the" EOS (Llama 3's <|eot_id|>, Qwen's <|im_end|>, Phi-3's <|end|>),
// so stopping on EOS alone runs past the answer. The loaders fill ModelConfig::end_of_generation_ids
// with all of them; generation stops on any (plus the chat template's end-of-turn token).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "engine/model/model_config.h"

namespace snapdoc {

class GgufFile;

// Vocabulary entries that end a turn wherever a model has them as special (control) tokens, as
// llama.cpp also treats them: <|eot_id|>, <|eom_id|>, <|end_of_text|>, <|im_end|>, <|end|>,
// <|endoftext|>, <end_of_turn>, <EOT>.
bool is_end_of_turn_name(std::string_view piece);

// From GGUF metadata: tokenizer.ggml.eos_token_id / eot_token_id / eom_token_id (absent or "none"
// (-1 / 0xFFFFFFFF) are skipped) and the control-typed tokens of tokenizer.ggml.tokens with an
// end-of-turn name (a malformed token list is skipped: the tokenizer reader reports it). Sorted,
// without duplicates. Throws FormatError naming the key when an id lies outside the vocabulary
// (`config.vocab_size`).
std::vector<int32_t> gguf_end_of_generation_ids(const GgufFile& gguf, const ModelConfig& config);

// From a Hugging Face folder: `config.eos_id`, config.json and generation_config.json
// "eos_token_id" (an int or a list), and tokenizer_config.json's special added tokens
// (added_tokens_decoder) with an end-of-turn name. Missing files are skipped; a file that is not
// valid JSON, or an id outside the vocabulary, is a FormatError naming the file.
std::vector<int32_t> hf_end_of_generation_ids(const std::filesystem::path& dir, const ModelConfig& config);

// Whether `token` ends generation for this model: its EOS or any end_of_generation_ids entry.
bool ends_generation(const ModelConfig& config, int32_t token);

}  // namespace snapdoc
