// snapdoc-server's settings (flags in app/server_main, defaults here).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/server/http_limits.h"
#include "engine/kv/snapkv_config.h"

namespace snapdoc::server {

struct ServerConfig {
    std::string host = "127.0.0.1";
    int port = 8080;                   // 0: any free port (the bound one is printed)
    std::string cors_origin;           // non-empty: Access-Control-Allow-Origin for browsers (e.g. "*")

    SnapKvConfig snapkv;             // defaults; requests override them in "snapkv"
    int snapkv_min_tokens = 4096;    // shorter prompts are answered with full attention
    int history_keep_tokens = 2048;  // recent turns kept whole by SnapKV (as the app)
    int max_tail_tokens = 2048;      // tokens after a held document part run through the layers at once
    int default_max_tokens = 512;    // when a request gives none (bounded by the context)
    float default_temperature = 0.8f;
    bool citations = true;

    std::size_t queue_limit = 16;            // requests waiting for the engine beyond this get 503
    std::size_t queue_per_client = 0;        // one client's waiting requests beyond this get 503 (0: queue_limit)
    int http_threads = 32;                   // connections served at once (queued ones hold one each)
    std::size_t max_body_bytes = 64u << 20;  // 413 above
    // Input bytes one token stands for at most (prompt_bound.h); a prompt whose bytes alone need
    // more tokens than the context is refused before tokenizing. 0: the vocabulary's longest piece.
    int prompt_bytes_per_token = 0;
    int read_timeout_s = 10, write_timeout_s = 10;
    // A comment line on an event stream (document events, streamed answers) after this long without
    // a write, so a long prefill never looks like a dead connection.
    int sse_ping_ms = 2000;
    HttpLimits http;  // heads, connections, backlog (GuardedHttpServer)

    int64_t session_ram_cap_bytes = int64_t{4} << 30;  // document sessions held in RAM (LRU beyond)
    std::size_t max_sessions = 64;
    bool kv_cache = true;  // write/restore document K/V files (for sessions >= snapkv_min_tokens)
    std::filesystem::path kv_cache_dir;  // empty: the app's folder
    int64_t kv_cache_cap_bytes = int64_t{4} << 30;

    // Who can see what (docs/server.md; access_control.h).
    std::vector<std::string> api_keys;  // any: every route but /health needs one; each key owns its documents
    std::vector<std::string> allowed_hosts;  // Host names served without a key beyond IP literals and localhost
    bool share_sessions = false;             // held sessions (and their reuse) shared by every client
    std::size_t max_documents = 64;          // per owner; identical uploads share one
    bool allow_no_key = false;               // --allow-no-key: a non-loopback --host without keys

    // HTTPS (--ssl-cert / --ssl-key, both or neither): PEM files; empty: plain HTTP.
    std::filesystem::path ssl_cert_file, ssl_key_file;
};

}  // namespace snapdoc::server
