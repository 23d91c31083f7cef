#include "app/server/server.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cstdio>

#include "app/server/api_error.h"
#include "app/server/document_events.h"
#include "engine/common/error.h"

namespace snapdoc::server {

void send_json(httplib::Response& res, int status, const nlohmann::json& j) {
    res.status = status;
    res.set_content(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

namespace {

// Every route runs through this: ApiError and anything else become the OpenAI error shape.
template <typename F>
httplib::Server::Handler guarded(F f) {
    return [f](const httplib::Request& req, httplib::Response& res) {
        try {
            f(req, res);
        } catch (const ApiError& e) {
            send_json(res, e.status(), e.body());
        } catch (const Error& e) {
            send_json(res, 400, bad_request(e.what()).body());
        } catch (const std::exception& e) {
            spdlog::error("{} {}: {}", req.method, req.path, e.what());
            send_json(res, 500, ApiError(500, "server_error", e.what()).body());
        }
    };
}

}  // namespace

Server::Server(ServerConfig config)
    : config_(std::move(config)),
      // Requests waiting for the engine hold a request thread each, so there are more threads
      // than queue places.
      access_(config_),
      http_(config_.http, std::max<int>(config_.http_threads, static_cast<int>(config_.queue_limit) + 4),
            config_.read_timeout_s, config_.write_timeout_s),
      sessions_(config_.session_ram_cap_bytes, config_.max_sessions) {
    http_.set_payload_max_length(config_.max_body_bytes);
    // httplib's default socket options add SO_REUSEPORT, with which a second server (say a manual
    // one and the app's) binds the same port without an error and the kernel splits connections
    // between them. SO_REUSEADDR alone still allows a quick restart on the same port.
    http_.set_socket_options([](auto sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    if (!config_.ssl_cert_file.empty() || !config_.ssl_key_file.empty()) {
        if (config_.ssl_cert_file.empty() || config_.ssl_key_file.empty())
            throw Error("--ssl-cert FILE and --ssl-key FILE go together: give both for HTTPS, or neither");
        auto tls = std::make_shared<const TlsContext>(config_.ssl_cert_file, config_.ssl_key_file);
        // On stderr with the flag warnings: stdout's first line is the listening address.
        if (!tls->warning().empty()) std::fprintf(stderr, "snapdoc-server: warning: %s\n", tls->warning().c_str());
        http_.use_tls(std::move(tls));
    }
    install_routes();
}

Server::~Server() {
    if (queue_) queue_->drain();
}

int Server::bind() {
    if (config_.port == 0) {
        port_ = http_.bind_to_any_port(config_.host);
    } else {
        port_ = http_.bind_to_port(config_.host, config_.port) ? config_.port : -1;
    }
    if (port_ <= 0)
        throw Error("cannot listen on " + config_.host + ":" + std::to_string(config_.port) +
                    " (address in use, or not an address of this machine)");
    http_.apply_backlog();
    return port_;
}

void Server::listen() {
    http_.serve();
}

void Server::attach_model(ModelHandle model) {
    {
        std::lock_guard lock(state_mu_);
        model_ = std::move(model);
        prompt_bound_.bytes_per_token = config_.prompt_bytes_per_token > 0
                                            ? config_.prompt_bytes_per_token
                                            : model_.tokenizer->max_input_bytes_per_token();
        worker_ =
            std::make_unique<EngineWorker>(config_, *model_.backend, *model_.tokenizer, model_.kind,
                                           model_.path, model_.run_context_length, sessions_, documents_);
        queue_ = std::make_unique<JobQueue>(config_.queue_limit, config_.queue_per_client,
                                            [this](Job& job) { worker_->run(job); });
    }
    ready_.store(true);
}

void Server::model_failed(std::string why) {
    std::lock_guard lock(state_mu_);
    load_error_ = std::move(why);
}

void Server::shutdown() {
    draining_.store(true);
    if (queue_) queue_->drain();
    http_.stop();
}

void Server::require_ready() const {
    if (draining_.load()) throw server_busy("the server is shutting down");
    if (!ready_.load()) {
        std::lock_guard lock(state_mu_);
        if (!load_error_.empty())
            throw ApiError(503, "server_error", "the model failed to load: " + load_error_);
        throw ApiError(503, "server_error", "the model is loading", "loading");
    }
}

void Server::submit(const std::shared_ptr<Job>& job, std::string client) {
    job->client = std::move(client);
    switch (queue_->submit(job)) {
        case JobQueue::Refusal::None:
            return;
        case JobQueue::Refusal::Draining:
            throw server_busy("the server is shutting down");
        case JobQueue::Refusal::Full:
            throw server_busy("the server is busy: " + std::to_string(config_.queue_limit) +
                              " requests are waiting already; retry later");
        case JobQueue::Refusal::ClientFull:
            throw server_busy("this client has " +
                              std::to_string(config_.queue_per_client) +
                              " requests waiting already (--queue-per-client); retry later");
    }
}

std::string client_key(const httplib::Request& req, const nlohmann::json* body) {
    // The OpenAI "user" field names the end user when one client program serves several.
    if (body && body->is_object())
        if (const auto u = body->find("user"); u != body->end() && u->is_string() && !u->get<std::string>().empty())
            return "user:" + u->get<std::string>();
    // The key's hash, as everywhere else: the raw key is kept nowhere.
    if (std::string auth = req.get_header_value("Authorization"); !auth.empty())
        return "auth:" + owner_id_for_key(auth);
    return "addr:" + req.remote_addr;
}

void Server::install_routes() {
    http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (access_.refuse_browser(req, res)) return httplib::Server::HandlerResponse::Handled;
        if (!config_.cors_origin.empty()) {
            res.set_header("Access-Control-Allow-Origin", config_.cors_origin);
            res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
            res.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
            if (req.method == "OPTIONS") {
                res.status = 204;
                return httplib::Server::HandlerResponse::Handled;
            }
        }
        if (access_.refuse_key(req, res)) return httplib::Server::HandlerResponse::Handled;
        return httplib::Server::HandlerResponse::Unhandled;
    });
    // Statuses no route set a body for (404 for an unknown route, 413 from the body cap, 400 from a
    // malformed request line) get the OpenAI error shape too.
    http_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty()) send_json(res, res.status, error_body_for_status(res.status));
    });

    http_.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
        if (ready_.load()) return send_json(res, 200, {{"status", "ok"}});
        std::lock_guard lock(state_mu_);
        if (!load_error_.empty()) return send_json(res, 503, {{"status", "error"}, {"error", load_error_}});
        send_json(res, 503, {{"status", "loading"}});
    });
    const auto models = guarded([this](const httplib::Request&, httplib::Response& res) {
        require_ready();
        send_json(res, 200,
                  {{"object", "list"},
                   {"data", nlohmann::json::array({{{"id", model_.id},
                                                    {"object", "model"},
                                                    {"created", 0},
                                                    {"owned_by", "snapdoc"}}})}});
    });
    http_.Get("/v1/models", models);
    http_.Get("/models", models);
    http_.Get("/props", guarded([this](const httplib::Request&, httplib::Response& res) {
                  require_ready();
                  send_json(res, 200, props());
              }));
    const auto chat = guarded([this](const httplib::Request& req, httplib::Response& res) {
        handle_completion(req, res, Endpoint::Chat);
    });
    http_.Post("/v1/chat/completions", chat);
    http_.Post("/chat/completions", chat);
    const auto completion = guarded([this](const httplib::Request& req, httplib::Response& res) {
        handle_completion(req, res, Endpoint::Completion);
    });
    http_.Post("/v1/completions", completion);
    http_.Post("/completions", completion);
    http_.Post("/tokenize", guarded([this](const auto& req, auto& res) { handle_tokenize(req, res); }));
    http_.Post("/detokenize", guarded([this](const auto& req, auto& res) { handle_detokenize(req, res); }));

    http_.Post("/v1/documents",
               guarded([this](const auto& req, auto& res) { handle_documents_post(req, res); }));
    // Documents are their owner's (the request's key): another owner's id is a 404, as an unknown one.
    http_.Get("/v1/documents", guarded([this](const httplib::Request& req, httplib::Response& res) {
                  require_ready();
                  nlohmann::json data = nlohmann::json::array();
                  for (const DocumentInfo& d : documents_.list(access_.owner(req))) data.push_back(document_json(d));
                  send_json(res, 200, {{"object", "list"}, {"data", data}});
              }));
    http_.Get(R"(/v1/documents/([A-Za-z0-9_-]+))",
              guarded([this](const httplib::Request& req, httplib::Response& res) {
                  require_ready();
                  const auto d = documents_.get(req.matches[1], access_.owner(req));
                  if (!d) throw not_found("no document '" + std::string(req.matches[1]) + "'");
                  send_json(res, 200, document_json(*d));
              }));
    http_.Get(R"(/v1/documents/([A-Za-z0-9_-]+)/events)",
              guarded([this](const httplib::Request& req, httplib::Response& res) {
                  require_ready();
                  const std::string id = req.matches[1], owner = access_.owner(req);
                  if (!documents_.get(id, owner)) throw not_found("no document '" + id + "'");
                  stream_document_events(res, documents_, id, owner, config_.sse_ping_ms, draining_);
              }));
    http_.Delete(R"(/v1/documents/([A-Za-z0-9_-]+))",
                 guarded([this](const httplib::Request& req, httplib::Response& res) {
                     require_ready();
                     const std::string id = req.matches[1];
                     if (!documents_.erase(id, access_.owner(req))) throw not_found("no document '" + id + "'");
                     sessions_.erase(id);
                     send_json(res, 200, {{"id", id}, {"object", "document"}, {"deleted", true}});
                 }));
}

nlohmann::json Server::props() const {
    const SessionTable::Stats st = sessions_.stats();
    const SnapKvConfig& s = config_.snapkv;
    return {
        {"model", model_.id},
        {"model_path", model_.path.string()},
        {"tls", http_.tls()},
        {"model_info", model_.info},
        {"context_length", model_.context_length},
        {"prompt_bytes_per_token", prompt_bound_.bytes_per_token},
        {"chat_template", chat_template_name(model_.kind)},
        {"snapkv",
         {{"enabled", s.enabled},
          {"budget", s.budget},
          {"window", s.window},
          {"kernel", s.kernel},
          {"pool", pooling_name(s.pooling)},
          {"gqa", gqa_mode_name(s.gqa)},
          {"policy", budget_policy_name(s.policy)},
          {"min_tokens", config_.snapkv_min_tokens}}},
        {"stats",
         {{"completed", worker_->stats().completed},
          {"cancelled", worker_->stats().cancelled},
          {"failed", worker_->stats().failed},
          {"generated_tokens", worker_->stats().generated_tokens}}},
        {"queue",
         {{"limit", config_.queue_limit},
          {"per_client_limit", config_.queue_per_client == 0 ? config_.queue_limit : config_.queue_per_client},
          {"waiting", queue_->waiting()},
          {"clients_waiting", queue_->clients_waiting()},
          {"busy", queue_->busy()}}},
        {"sessions",
         {{"held", st.sessions},
          {"bytes", st.bytes},
          {"ram_cap_bytes", sessions_.cap_bytes()},
          {"evicted", st.evicted}}}};
}

}  // namespace snapdoc::server
