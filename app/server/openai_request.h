// The OpenAI request bodies snapdoc-server accepts (chat completions, completions), parsed and
// checked field by field: a wrong type or value is an ApiError(400) that names the field. Fields
// OpenAI clients send that do not change the answer here (user, logit_bias, penalties, ...) are
// accepted and ignored.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/tokenizer/chat_template.h"

namespace snapdoc::server {

// The "snapkv" extension object: per-request overrides of the server's compression defaults.
struct SnapKvOverrides {
    std::optional<bool> enabled;
    std::optional<int> budget, window, kernel;
    std::optional<std::string> pool, policy, gqa;
};

struct GenerationFields {
    std::optional<int> max_tokens;  // max_completion_tokens, else max_tokens
    std::optional<float> temperature, top_p;
    std::optional<int> top_k;  // llama.cpp's extension
    std::optional<uint64_t> seed;
    std::vector<std::string> stop;
    bool stream = false;
    bool include_usage = false;  // stream_options.include_usage
    bool ignore_eos = false;     // llama.cpp's extension: generate to max_tokens
    bool return_progress = false;  // llama-server's extension: prompt_progress chunks while streaming
    SnapKvOverrides snapkv;
    std::string model;
};

struct ChatRequest {
    std::vector<ChatMessage> messages;
    std::string document_id;  // extension: answer over an explicit document session
    // extension: over several, in this order (two or more; one id is moved to document_id)
    std::vector<std::string> document_ids;
    GenerationFields gen;
};

struct CompletionRequest {
    std::string prompt;               // text (never parsed for control tokens)
    std::vector<int32_t> prompt_ids;  // or token ids ("prompt": [1, 2, 3])
    GenerationFields gen;
};

// The body as JSON: 400 for invalid JSON, a non-object, or nesting deeper than the limit.
nlohmann::json parse_body(const std::string& body);

ChatRequest parse_chat_request(const nlohmann::json& body);
CompletionRequest parse_completion_request(const nlohmann::json& body);

}  // namespace snapdoc::server
