// How many tokens a prompt is on the remote model, for the fit check before anything is sent:
// the server's own count where it offers one (vLLM's /tokenize with the chat messages, so its chat
// template is counted; llama-server's and snapdoc-server's /tokenize on the text), else an estimate
// that errs on the long side for most text (kBytesPerTokenEstimate bytes per token).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "app/remote/remote_endpoint.h"
#include "app/remote/remote_models.h"

namespace snapdoc::remote {

// English prose runs at about 4 bytes per token on the common vocabularies; 3 over-counts it,
// so a document estimated to fit is unlikely not to. (CJK text can be denser: the server's own
// context error is then shown as it says it.)
inline constexpr int64_t kBytesPerTokenEstimate = 3;
// What a chat template adds around each message (role markers, BOS, the answer's opening) when
// only the messages' text was counted.
inline constexpr int64_t kTemplateTokensPerMessage = 16;

struct TokenCount {
    int64_t tokens = 0;
    bool exact = false;  // counted by the server
    std::string how;     // "vLLM /tokenize", "llama-server /tokenize", "estimated at 3 bytes per token"
};

TokenCount count_prompt_tokens(const RemoteEndpoint& ep, EngineKind kind, const std::string& model,
                               const nlohmann::json& messages);

}  // namespace snapdoc::remote
