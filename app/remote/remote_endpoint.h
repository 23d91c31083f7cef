// Where a remote OpenAI-compatible engine is and how to reach it (a snapdoc-server on another
// machine, vLLM, llama-server, Ollama, LM Studio): the base URL, the API key, how its TLS
// certificate is trusted, and the timeouts that turn a dead or silent server into an error instead
// of a hang. Qt-free; used by snapdoc-cli and (later) the app's Connections.
#pragma once

#include <string>
#include <string_view>

namespace snapdoc::remote {

struct RemoteEndpoint {
    // scheme://host[:port][/prefix] without "/v1" and without a trailing '/': what
    // normalize_base_url makes of what the user typed.
    std::string root;
    std::string api_key;  // sent as "Authorization: Bearer KEY" (to this endpoint only; no redirects)
    std::string ca_cert_file;              // PEM file of the CA (or the self-signed certificate) to trust
    bool insecure_skip_verify = false;     // trust whatever certificate the server shows (--insecure)
    long connect_timeout_ms = 10000;       // TCP + TLS handshake
    long stall_timeout_ms = 300000;        // no byte in either direction for this long: an error
    long request_timeout_ms = 60000;       // whole requests other than streams and uploads

    // root + "/v1" + path (path starts with '/'): the OpenAI routes.
    std::string v1(std::string_view path) const;
    // root + path: the engines' own routes (/props, /tokenize, /api/show, /api/v0/models).
    std::string at(std::string_view path) const;
};

// "http://host:8000", "http://host:8000/", "http://host:8000/v1", "http://host:8000/v1/" all give
// "http://host:8000"; a path prefix before /v1 (a reverse proxy's "/llm/v1") is kept. Throws Error
// for an empty URL, a scheme other than http:// or https://, a missing host, or a query/fragment.
std::string normalize_base_url(std::string_view url);

}  // namespace snapdoc::remote
