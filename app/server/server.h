// snapdoc-server's HTTP side on cpp-httplib: the OpenAI routes, auth, CORS, limits, the error
// shape, and the lifecycle (listening before the model is loaded so /health can say 503, then
// 200; drain on shutdown). One engine worker runs the jobs the routes queue (job_queue.h).
#pragma once

#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "app/server/access_control.h"
#include "app/server/document_registry.h"
#include "app/server/engine_worker.h"
#include "app/server/guarded_http_server.h"
#include "app/server/job_queue.h"
#include "app/server/openai_request.h"
#include "app/server/openai_response.h"
#include "app/server/prompt_bound.h"
#include "app/server/server_config.h"
#include "app/server/session_table.h"
#include "engine/runtime/backend.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::server {

// What the server answers with: the loaded model's pieces (owned by the caller).
struct ModelHandle {
    Backend* backend = nullptr;
    const Tokenizer* tokenizer = nullptr;
    ChatTemplateKind kind = ChatTemplateKind::Plain;
    std::filesystem::path path;
    int run_context_length = 0;  // --ctx as given (0: the model's)
    int context_length = 0;      // the limit prompts + max_tokens are checked against
    nlohmann::json info;         // for /props
    std::string id;              // listed in /v1/models (listed_model_id: --alias or the model's name)
};

// A JSON body with `status` (invalid UTF-8 from a model's text is replaced, never sent raw).
void send_json(httplib::Response& res, int status, const nlohmann::json& j);

// Whom a request is counted against in the fair queue (Job::client).
// `body`: the parsed JSON body, when there is one (its "user" field).
std::string client_key(const httplib::Request& req, const nlohmann::json* body);

class Server {
public:
    explicit Server(ServerConfig config);
    ~Server();

    // Binds config.host:config.port (0: a free port) and returns the port; throws Error if it cannot.
    int bind();
    // "https" with --ssl-cert / --ssl-key, else "http".
    std::string scheme() const { return http_.tls() ? "https" : "http"; }
    // Serves until shutdown() (blocking; call from one thread).
    void listen();
    // The model is ready: /health turns 200 and the API routes answer.
    void attach_model(ModelHandle model);
    void model_failed(std::string why);
    // Refuses new requests (503), lets queued and running ones finish, then stops listening.
    void shutdown();

private:
    void install_routes();
    void handle_completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
    void handle_documents_post(const httplib::Request& req, httplib::Response& res);
    void handle_tokenize(const httplib::Request& req, httplib::Response& res);
    void handle_detokenize(const httplib::Request& req, httplib::Response& res);
    nlohmann::json props() const;
    // Checks model readiness and draining; throws ApiError(503) otherwise.
    void require_ready() const;
    // max_tokens, sampling and snapkv settings for a prompt of `prompt_tokens`.
    void resolve(const GenerationFields& gen, int prompt_tokens, Job& job) const;
    // Throws exceed_context_size_error when `known_tokens` plus the fewest tokens `text_bytes`
    // can encode to, plus what `gen` asks to generate, cannot fit the context (prompt_bound.h).
    void check_bytes_fit(const GenerationFields& gen, int64_t known_tokens, std::size_t text_bytes,
                         const char* param) const;
    void respond(const httplib::Request& req, httplib::Response& res, const std::shared_ptr<Job>& job,
                 const ResponseMeta& meta, bool stream, bool include_usage);
    // Queues `job` as `client`'s (client_key); throws ApiError(503) when the queue refuses it.
    void submit(const std::shared_ptr<Job>& job, std::string client);

    ServerConfig config_;
    AccessControl access_;  // keys, owners, clients, Host and Origin
    GuardedHttpServer http_;
    int port_ = 0;
    std::atomic<bool> ready_{false}, draining_{false};
    std::string load_error_;
    mutable std::mutex state_mu_;
    ModelHandle model_;
    PromptByteBound prompt_bound_;  // set with the model
    SessionTable sessions_;
    DocumentRegistry documents_;
    std::unique_ptr<EngineWorker> worker_;
    std::unique_ptr<JobQueue> queue_;
};

}  // namespace snapdoc::server
