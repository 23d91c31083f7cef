// What a remote endpoint is and what it serves: GET /v1/models, then each engine's own way of
// saying a model's context, looked for in turn: snapdoc-server's and llama-server's /props, vLLM's
// max_model_len in /v1/models, LM Studio's /api/v0/models, Ollama's /api/show. A context that no
// route gives stays 0 (unknown).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/remote/remote_endpoint.h"

namespace snapdoc::remote {

enum class EngineKind { SnapdocServer, Vllm, LlamaServer, Ollama, LmStudio, OpenAiCompatible };
std::string_view engine_name(EngineKind kind);  // "snapdoc-server", "vLLM", ...

struct RemoteModel {
    std::string id;
    int64_t context = 0;         // tokens; 0: the server does not say
    std::string context_source;  // where it came from, for messages ("/props n_ctx", ...)
};

struct RemoteServer {
    EngineKind kind = EngineKind::OpenAiCompatible;
    std::vector<RemoteModel> models;
    // snapdoc-server only: its SnapKV defaults and limits (/props), for the inspector later.
    int64_t prompt_bytes_per_token = 0;
};

// Throws Error when /v1/models cannot be read (the server's words, 401 with a hint about the key).
// `context_for`: with Ollama, whose context takes one request per model, only that model's is
// looked up (all models, at most 32, when empty).
RemoteServer discover(const RemoteEndpoint& ep, std::string_view context_for = {});

// The model to use: `wanted` if the server lists it (else Error naming what it lists), else the
// only one it lists (else Error asking for --model).
const RemoteModel& choose_model(const RemoteServer& server, std::string_view wanted);

}  // namespace snapdoc::remote
