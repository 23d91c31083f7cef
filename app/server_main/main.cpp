// snapdoc-server: an OpenAI-compatible HTTP server over one model, whose long prompts are held as
// SnapKV document sessions (app/server). It listens at once (GET /health says 503 until the model
// is loaded, then 200), prints the bound address on stdout, and drains on SIGTERM / SIGINT.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "app/cli/model_setup.h"
#include "app/cli/snapkv_flags.h"
#include "app/common/args.h"
#include "app/common/gpu_self_check_report.h"
#include "app/common/version_text.h"
#include "app/server/model_id.h"
#include "app/server/server.h"
#include "engine/common/error.h"
#include "engine/common/process_exit.h"
#include "engine/model/model_summary.h"
#include "engine/session/document_chat.h"

namespace {

using snapdoc::Error;
using snapdoc::cli::Args;
using snapdoc::cli::FlagSpec;

std::atomic<int> g_stop_signal{0};
void on_stop_signal(int sig) {
    if (g_stop_signal.exchange(sig) != 0) std::_Exit(128 + sig);  // a second signal: stop now
}

void usage() {
    std::fputs(
        "usage: snapdoc-server -m MODEL [--host 127.0.0.1] [--port 8080 (0 = any free port)] [--api-key "
        "KEY]\n"
        "       [--cors ORIGIN] [--alias NAME] [--ctx N] [--template NAME] [--threads N] [--device "
        "cpu|cuda|auto] [--gpu-self-check]\n"
        "       [--budget 1024 --window 32 --kernel 7 --pool max|avg --gqa kv-head|query-head\n"
        "        --policy uniform|pyramid|adaptive | --full] [--snapkv-min-tokens 4096] [--history-keep "
        "2048]\n"
        "       [--max-tail 2048] [-n 512 (default max_tokens)] [--temp 0.8] [--no-citations]\n"
        "       [--queue 16] [--queue-per-client 0] [--http-threads 32] [--max-body-mb 64] [--timeout 10]\n"
        "       [--head-timeout 10] [--max-headers 100] [--max-header-kb 64] [--max-connections 512]\n"
        "       [--max-connections-per-address 64] [--max-active-per-address 0 (half the threads)] [--backlog 511]\n"
        "       [--prompt-bytes-per-token N (0: the vocabulary's longest piece)] [--sse-ping-ms 2000]\n"
        "       [--session-ram-mb 4096] [--max-sessions 64] [--cache-dir DIR | --no-cache] [--cache-cap-mb "
        "4096]\n"
        "       [--log-level info]\n"
        "       [--api-key KEY ... | --api-keys-file FILE] [--allow-host NAME ...] [--share-sessions]\n"
        "       [--max-documents 64] [--allow-no-key (a non-loopback --host without keys)]\n"
        "       [--ssl-cert CERT.pem --ssl-key KEY.pem (HTTPS)]\n"
        "MODEL as for snapdoc-cli: a .gguf file, a Hugging Face folder, hf://REPO[:QUANT], or demo (the\n"
        "bundled demo model). --version prints the version and where the CUDA backend and bundled files are.\n"
        "OpenAI routes: /v1/chat/completions, /v1/completions, /v1/models; also /health, /props, /tokenize,\n"
        "/detokenize, /v1/documents. See docs/server.md.\n",
        stderr);
}

// The connection limits (docs/server.md, "Limits"): each flag with its range.
snapdoc::server::HttpLimits http_limits_from(const Args& args) {
    snapdoc::server::HttpLimits h;
    auto bounded = [&](const char* flag, long long value, long long lo, long long hi) {
        const long long v = args.integer64(flag, value);
        if (v < lo || v > hi)
            throw Error("--" + std::string(flag) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return v;
    };
    h.head_timeout_s = static_cast<int>(bounded("head-timeout", h.head_timeout_s, 1, 600));
    h.max_header_count = static_cast<std::size_t>(bounded("max-headers", static_cast<long long>(h.max_header_count), 8, 10000));
    h.max_head_bytes =
        static_cast<std::size_t>(bounded("max-header-kb", static_cast<long long>(h.max_head_bytes >> 10), 4, 1024)) << 10;
    h.max_connections =
        static_cast<std::size_t>(bounded("max-connections", static_cast<long long>(h.max_connections), 4, 65536));
    h.max_connections_per_address = static_cast<std::size_t>(
        bounded("max-connections-per-address", static_cast<long long>(h.max_connections_per_address), 1, 65536));
    h.max_active_per_address = static_cast<std::size_t>(
        bounded("max-active-per-address", static_cast<long long>(h.max_active_per_address), 0, 1024));
    h.backlog = static_cast<int>(bounded("backlog", h.backlog, 1, 65535));
    return h;
}

// Who can see what (docs/server.md): keys, the Host names served, session sharing, the document cap.
void access_from(const Args& args, snapdoc::server::ServerConfig& c) {
    c.api_keys = args.all("api-key");
    if (args.has("api-keys-file")) {
        const auto more = snapdoc::server::read_api_keys_file(args.str("api-keys-file"));
        c.api_keys.insert(c.api_keys.end(), more.begin(), more.end());
    }
    for (const std::string& k : c.api_keys)
        if (k.empty()) throw Error("--api-key must not be empty");
    c.allowed_hosts = args.all("allow-host");
    c.share_sessions = args.has("share-sessions");
    const int docs = args.integer("max-documents", static_cast<int>(c.max_documents));
    if (docs < 1 || docs > 100000) throw Error("--max-documents must be in [1, 100000]");
    c.max_documents = static_cast<std::size_t>(docs);
    c.allow_no_key = args.has("allow-no-key");
    // Refused before binding: it is about the flags, and holds whether or not the bind succeeds.
    if (c.api_keys.empty() && !snapdoc::server::is_loopback_host(c.host)) {
        if (!c.allow_no_key)
            throw Error("--host " + c.host +
                        " without --api-key: anyone who can reach this address could use the model and read, ask "
                        "about and delete every uploaded document. Give each client a key (--api-key KEY, "
                        "repeatable, or --api-keys-file FILE), or add --allow-no-key if a reverse proxy in front "
                        "authenticates (or listen on 127.0.0.1 behind it)");
        std::fprintf(stderr,
                     "snapdoc-server: warning: --host %s without --api-key (--allow-no-key): anyone who can reach "
                     "this address can use the model and every uploaded document.\n",
                     c.host.c_str());
    }
    c.ssl_cert_file = args.str("ssl-cert");
    c.ssl_key_file = args.str("ssl-key");
}

snapdoc::server::ServerConfig config_from(const Args& args) {
    snapdoc::server::ServerConfig c;
    c.host = args.str("host", c.host);
    c.port = args.integer("port", c.port);
    if (c.port < 0 || c.port > 65535) throw Error("--port must be in [0, 65535]");
    c.cors_origin = args.str("cors");
    c.snapkv = snapdoc::cli::snapkv_config_from(args);
    c.snapkv_min_tokens = args.integer("snapkv-min-tokens", c.snapkv_min_tokens);
    c.history_keep_tokens = args.integer("history-keep", c.history_keep_tokens);
    c.max_tail_tokens = args.integer("max-tail", c.max_tail_tokens);
    c.default_max_tokens = snapdoc::cli::n_predict_flag(args, c.default_max_tokens);
    c.default_temperature = args.real("temp", c.default_temperature);
    c.citations = !args.has("no-citations");
    const int queue = args.integer("queue", static_cast<int>(c.queue_limit));
    const int per_client = args.integer("queue-per-client", 0);
    const int threads = args.integer("http-threads", c.http_threads);
    const long long body_mb = args.integer64("max-body-mb", static_cast<long long>(c.max_body_bytes >> 20));
    const int timeout = args.integer("timeout", c.read_timeout_s);
    c.prompt_bytes_per_token = args.integer("prompt-bytes-per-token", c.prompt_bytes_per_token);
    c.sse_ping_ms = args.integer("sse-ping-ms", c.sse_ping_ms);
    if (c.sse_ping_ms < 100 || c.sse_ping_ms > 600000) throw Error("--sse-ping-ms must be in [100, 600000]");
    if (c.prompt_bytes_per_token < 0 || c.prompt_bytes_per_token > (1 << 20))
        throw Error("--prompt-bytes-per-token must be in [0, 1048576] (0: derived from the vocabulary)");
    const long long ram_mb = args.integer64("session-ram-mb", c.session_ram_cap_bytes >> 20);
    const int sessions = args.integer("max-sessions", static_cast<int>(c.max_sessions));
    const long long cache_mb = args.integer64("cache-cap-mb", c.kv_cache_cap_bytes >> 20);
    if (c.snapkv_min_tokens < 0) throw Error("--snapkv-min-tokens must be >= 0");
    if (c.history_keep_tokens < -1) throw Error("--history-keep must be -1 (all turns whole) or >= 0");
    if (c.max_tail_tokens < 1) throw Error("--max-tail must be >= 1");
    if (c.default_temperature < 0 || c.default_temperature > 2) throw Error("--temp must be in [0, 2]");
    if (queue < 1 || queue > 4096) throw Error("--queue must be in [1, 4096]");
    if (per_client < 0 || per_client > queue) throw Error("--queue-per-client must be in [0, --queue]");
    if (threads < 2 || threads > 1024) throw Error("--http-threads must be in [2, 1024]");
    if (body_mb < 1 || body_mb > 4096) throw Error("--max-body-mb must be in [1, 4096]");
    if (timeout < 1 || timeout > 3600) throw Error("--timeout must be in [1, 3600] seconds");
    if (ram_mb < 0 || sessions < 1 || cache_mb < 0)
        throw Error("--session-ram-mb, --max-sessions, --cache-cap-mb must be positive");
    c.queue_limit = static_cast<std::size_t>(queue);
    c.queue_per_client = static_cast<std::size_t>(per_client);
    c.http_threads = threads;
    c.max_body_bytes = static_cast<std::size_t>(body_mb) << 20;
    c.read_timeout_s = c.write_timeout_s = timeout;
    c.session_ram_cap_bytes = static_cast<int64_t>(ram_mb) << 20;
    c.max_sessions = static_cast<std::size_t>(sessions);
    c.http = http_limits_from(args);
    c.kv_cache = !args.has("no-cache");
    if (!c.kv_cache && args.has("cache-dir")) throw Error("--no-cache and --cache-dir contradict each other");
    c.kv_cache_dir = args.str("cache-dir");
    c.kv_cache_cap_bytes = static_cast<int64_t>(cache_mb) << 20;
    access_from(args, c);
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "-h" || std::string_view(argv[i]) == "--help") {
            usage();
            return 0;
        }
    if (argc == 2 && std::string_view(argv[1]) == "--version") {
        std::fputs(snapdoc::version_text("snapdoc-server").c_str(), stdout);
        return 0;
    }
    // SIGTERM / SIGINT only set a flag (OpenBLAS starts threads before main, so blocking signals
    // for a sigwait thread cannot cover them); a watcher thread drains. A client that closes its
    // socket must not kill the server with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    // A file size limit (ulimit -f) must fail a write (a log line, a cache file) with EFBIG, not
    // end the server.
    snapdoc::ignore_file_size_signal();
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGINT, on_stop_signal);

    std::vector<FlagSpec> flags = snapdoc::cli::model_flags();
    const auto kv = snapdoc::cli::snapkv_flags();
    flags.insert(flags.end(), kv.begin(), kv.end());
    flags.insert(flags.end(), {{{"--ctx"}},
                               {{"--host"}},
                               {{"--port"}},
                               {{"--api-key"}, true, true},
                               {{"--api-keys-file"}},
                               {{"--allow-host"}, true, true},
                               {{"--share-sessions"}, false},
                               {{"--allow-no-key"}, false},
                               {{"--ssl-cert"}},
                               {{"--ssl-key"}},
                               {{"--max-documents"}},
                               {{"--cors"}},
                               {{"--alias"}},
                               {{"--template"}},
                               {{"--snapkv-min-tokens"}},
                               {{"--history-keep"}},
                               {{"--max-tail"}},
                               {{"-n", "--n-predict"}},
                               {{"--temp"}},
                               {{"--no-citations"}, false},
                               {{"--queue"}},
                               {{"--queue-per-client"}},
                               {{"--http-threads"}},
                               {{"--max-body-mb"}},
                               {{"--prompt-bytes-per-token"}},
                               {{"--timeout"}},
                               {{"--sse-ping-ms"}},
                               {{"--session-ram-mb"}},
                               {{"--head-timeout"}},
                               {{"--max-headers"}},
                               {{"--max-header-kb"}},
                               {{"--max-connections"}},
                               {{"--max-connections-per-address"}},
                               {{"--max-active-per-address"}},
                               {{"--backlog"}},
                               {{"--max-sessions"}},
                               {{"--cache-dir"}},
                               {{"--no-cache"}, false},
                               {{"--cache-cap-mb"}}});
    std::unique_ptr<Args> args;
    std::unique_ptr<snapdoc::server::Server> server;
    int port = 0;
    try {
        args = std::make_unique<Args>(flags, argc, argv, 1);
        args->required("model");
        snapdoc::server::ServerConfig config = config_from(*args);
        server = std::make_unique<snapdoc::server::Server>(config);
        port = server->bind();
        std::printf("snapdoc-server: listening on %s://%s:%d\n", server->scheme().c_str(), config.host.c_str(), port);
        std::fflush(stdout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "snapdoc-server: %s\n", e.what());
        usage();
        return 2;
    }
    std::atomic<bool> loaded{false};
    std::thread listener([&] { server->listen(); });
    std::thread signals([&] {
        while (g_stop_signal.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::fprintf(stderr, "snapdoc-server: %s: finishing the requests in flight\n",
                     g_stop_signal.load() == SIGTERM ? "SIGTERM" : "SIGINT");
        if (!loaded.load()) std::_Exit(0);  // nothing to drain while the model loads
        server->shutdown();
    });

    int status = 0;
    snapdoc::cli::LoadedModel lm;
    try {
        lm = snapdoc::cli::load_for_cli(*args, /*need_tokenizer=*/true, /*need_backend=*/true);
        snapdoc::server::ModelHandle h;
        h.backend = lm.backend.get();
        h.tokenizer = &*lm.tokenizer;
        h.kind = snapdoc::choose_chat_template(lm.model->chat_template, args->str("template"));
        h.path = lm.model->path;  // the local file, also for -m hf://REPO (the K/V cache keys by it)
        h.id = snapdoc::server::listed_model_id(args->str("alias"), lm.model->config.name, h.path);
        h.run_context_length = args->integer("ctx", 0);
        const auto& cfg = lm.backend->config();
        h.context_length = h.run_context_length > 0 ? h.run_context_length : cfg.context_length;
        h.info = {{"architecture", cfg.architecture},
                  {"layers", cfg.n_layers},
                  {"heads", cfg.n_heads},
                  {"kv_heads", cfg.n_kv_heads},
                  {"head_dim", cfg.head_dim},
                  {"vocab_size", lm.tokenizer->vocab_size()},
                  {"backend", lm.backend->name()},
                  {"gpu_self_check", snapdoc::gpu_self_check_json(snapdoc::last_gpu_self_check(), lm.backend->name())}};
        loaded.store(true);
        server->attach_model(h);
        std::fprintf(stderr, "snapdoc-server: model %s ready (template %s, context %d)\n",
                     h.path.string().c_str(), std::string(snapdoc::chat_template_name(h.kind)).c_str(),
                     h.context_length);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "snapdoc-server: %s\n", e.what());
        server->model_failed(e.what());
        status = 1;
        loaded.store(true);
        g_stop_signal.store(SIGTERM);  // the watcher thread stops the listener
    }
    listener.join();
    signals.join();
    server.reset();
    return status;
}
