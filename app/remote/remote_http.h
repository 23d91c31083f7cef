// HTTP for the remote engine on libcurl (the hub client's CurlHandle): GETs and JSON POSTs answered
// whole, and a POST whose body is handed over as it arrives (a stream of server-sent events). The
// endpoint's key, CA certificate or --insecure, and its timeouts apply to every request; redirects
// are not followed (the key goes to the endpoint only). Network failures throw Error in words
// (cannot connect, untrusted certificate, nothing received for the stall timeout, cut off); an
// HTTP error status is returned for the caller to read the server's error object.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/remote/remote_endpoint.h"

namespace snapdoc::remote {

struct HttpReply {
    long status = 0;
    std::string body;  // for a stream with a 2xx status: empty (the bytes went to on_bytes)
    bool ok() const { return status >= 200 && status < 300; }
};

HttpReply http_get(const RemoteEndpoint& ep, const std::string& url);
// `timed`: bounded by request_timeout_ms as a whole (else only by the stall timeout: an upload).
HttpReply http_post_json(const RemoteEndpoint& ep, const std::string& url, const nlohmann::json& body,
                         bool timed = true);
// The body of a 2xx answer goes to on_bytes as it arrives (return false to stop reading, e.g. after
// [DONE]); an error status's body is collected into the reply instead. `cancel` (may be null) is
// looked at several times a second: set, the request stops and Cancelled is thrown.
HttpReply http_post_stream(const RemoteEndpoint& ep, const std::string& url, const nlohmann::json& body,
                           const std::function<bool(std::string_view)>& on_bytes,
                           const std::atomic<bool>* cancel);

// The server's own words for a failed request, as engines send them: OpenAI's and llama-server's
// {"error": {"message": ...}}, Ollama's {"error": "..."}, vLLM's older {"object": "error",
// "message": ...}, FastAPI's {"detail": ...}; else the body itself (shortened, printable).
std::string server_error_text(std::string_view body);
// "<url>: HTTP 401: <server's words>" plus a hint for 401/403 (the key) and 404 (the URL).
[[noreturn]] void throw_http_error(const std::string& url, const HttpReply& reply, bool had_key);

}  // namespace snapdoc::remote
