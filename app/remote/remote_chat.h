// A streamed chat completion from a remote engine (POST /v1/chat/completions with "stream": true):
// the answer's text is handed on as it arrives; the server's error objects, before the stream or
// inside it, are thrown in the server's words; a stream that ends before its last chunk is an error.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "app/remote/remote_endpoint.h"

namespace snapdoc::remote {

struct RemoteChatRequest {
    std::string model;
    nlohmann::json messages = nlohmann::json::array();  // [{"role", "content"}, ...]
    int max_tokens = 256;
    std::optional<float> temperature, top_p;
    std::optional<int> top_k;          // not OpenAI's, but vLLM, llama-server and snapdoc-server take it
    std::optional<int64_t> seed;
    std::string document_id;           // snapdoc-server's extension: ask about this uploaded document
    std::vector<std::string> document_ids;  // or about these, in this order (docs/server.md)
};

struct RemoteChatReply {
    std::string text;
    std::string finish_reason;                   // "stop", "length", ...; "cancelled" after Ctrl-C
    nlohmann::json citations;                    // null when the engine gives none (snapdoc-server gives them)
    nlohmann::json usage;                        // null when the engine sends none
};

// `cancel` set (Ctrl-C): the request stops within a fraction of a second and the reply holds the
// answer so far, finish_reason "cancelled".
RemoteChatReply stream_chat(const RemoteEndpoint& ep, const RemoteChatRequest& req,
                            const std::function<void(const std::string& text)>& on_text,
                            const std::atomic<bool>* cancel);

}  // namespace snapdoc::remote
