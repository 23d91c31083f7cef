#include "tests/remote/fake_engine.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace snapdoc::test {

using json = nlohmann::json;

FakeEngine::FakeEngine(const std::string& cert_file, const std::string& key_file) {
    if (!cert_file.empty()) {
        server_ = std::make_unique<httplib::SSLServer>(cert_file.c_str(), key_file.c_str());
        tls_ = true;
    } else {
        server_ = std::make_unique<httplib::Server>();
    }
    server_->set_keep_alive_max_count(1);
}

FakeEngine::~FakeEngine() {
    stopping = true;
    server_->stop();
    if (thread_.joinable()) thread_.join();
}

void FakeEngine::start() {
    port_ = server_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("fake engine: cannot bind a loopback port");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    for (int i = 0; i < 200 && !server_->is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

std::string FakeEngine::url(const std::string& path) const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
}

std::string sse_chunk(const std::string& model, const std::string& piece) {
    const json c = {{"id", "chatcmpl-1"},
                    {"object", "chat.completion.chunk"},
                    {"created", 1},
                    {"model", model},
                    {"choices", {{{"index", 0}, {"delta", {{"content", piece}}}, {"finish_reason", nullptr}}}}};
    return "data: " + c.dump() + "\n\n";
}

std::string sse_answer(const std::string& model, const std::vector<std::string>& pieces) {
    std::string body;
    for (const auto& p : pieces) body += sse_chunk(model, p);
    const json last = {{"id", "chatcmpl-1"},
                       {"object", "chat.completion.chunk"},
                       {"model", model},
                       {"choices", {{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}}}};
    const json usage = {{"id", "chatcmpl-1"},
                        {"object", "chat.completion.chunk"},
                        {"model", model},
                        {"choices", json::array()},
                        {"usage", {{"prompt_tokens", 42}, {"completion_tokens", static_cast<int>(pieces.size())},
                                   {"total_tokens", 42 + static_cast<int>(pieces.size())}}}};
    // ": ping" as some servers send to keep a connection alive: must be skipped.
    body += ": ping\n\n";
    body += "data: " + last.dump() + "\r\n\r\n";  // CRLF lines, as some proxies write them
    body += "data: " + usage.dump() + "\n\n";
    body += "data: [DONE]\n\n";
    return body;
}

namespace {

bool key_ok(const httplib::Request& req, const std::string& key) {
    return key.empty() || req.get_header_value("Authorization") == "Bearer " + key;
}

int64_t prompt_bytes(const json& body) {
    int64_t n = 0;
    if (body.contains("messages"))
        for (const auto& m : body["messages"]) n += static_cast<int64_t>(m.value("content", "").size());
    return n;
}

void answer_chat(FakeEngine& e, const httplib::Request& req, httplib::Response& res, const std::string& model) {
    ++e.chat_requests;
    e.last_authorization = req.get_header_value("Authorization");
    res.set_content(sse_answer(model, {"The ", "answer ", "is 42."}), "text/event-stream");
}

}  // namespace

void add_vllm_routes(FakeEngine& e, const std::string& model, int context, const std::string& api_key) {
    // vLLM's API key check answers 401 {"error": "Unauthorized"} on every /v1 route.
    e.http().set_pre_routing_handler([api_key](const httplib::Request& req, httplib::Response& res) {
        if (!key_ok(req, api_key)) {
            res.status = 401;
            res.set_content(R"({"error": "Unauthorized"})", "application/json");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    e.http().Get("/v1/models", [model, context](const httplib::Request&, httplib::Response& res) {
        const json j = {{"object", "list"},
                        {"data",
                         {{{"id", model},
                           {"object", "model"},
                           {"created", 1700000000},
                           {"owned_by", "vllm"},
                           {"root", model},
                           {"parent", nullptr},
                           {"max_model_len", context}}}}};
        res.set_content(j.dump(), "application/json");
    });
    // /tokenize with messages: {"count", "max_model_len", "tokens"}; 4 bytes a token here.
    e.http().Post("/tokenize", [context](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body);
        const int64_t n = prompt_bytes(body) / 4 + 10;
        res.set_content(json({{"count", n}, {"max_model_len", context}, {"tokens", json::array()}}).dump(),
                        "application/json");
    });
    e.http().Post("/v1/chat/completions", [&e, model, context](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body);
        // The context error as vLLM words it (ErrorResponse), for prompts over the context.
        if (prompt_bytes(body) / 4 + body.value("max_tokens", 0) > context) {
            ++e.chat_requests;
            res.status = 400;
            res.set_content(json({{"object", "error"},
                                  {"message", "This model's maximum context length is " + std::to_string(context) +
                                                  " tokens. However, you requested more tokens in the messages."},
                                  {"type", "BadRequestError"},
                                  {"param", nullptr},
                                  {"code", 400}})
                                .dump(),
                            "application/json");
            return;
        }
        answer_chat(e, req, res, model);
    });
}

void add_llama_server_routes(FakeEngine& e, const std::string& model, int n_ctx, const std::string& api_key) {
    e.http().set_pre_routing_handler([api_key](const httplib::Request& req, httplib::Response& res) {
        if (req.path != "/health" && !key_ok(req, api_key)) {
            res.status = 401;
            res.set_content(R"({"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}})",
                            "application/json");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    e.http().Get("/v1/models", [model](const httplib::Request&, httplib::Response& res) {
        const json j = {{"object", "list"},
                        {"data",
                         {{{"id", model},
                           {"object", "model"},
                           {"created", 1700000000},
                           {"owned_by", "llamacpp"},
                           {"meta", {{"vocab_type", 2}, {"n_vocab", 151936}, {"n_ctx_train", 32768}}}}}}};
        res.set_content(j.dump(), "application/json");
    });
    e.http().Get("/props", [model, n_ctx](const httplib::Request&, httplib::Response& res) {
        const json j = {{"default_generation_settings", {{"n_ctx", n_ctx}, {"params", {{"temperature", 0.8}}}}},
                        {"total_slots", 1},
                        {"model_path", "/models/" + model},
                        {"chat_template", "..."}};
        res.set_content(j.dump(), "application/json");
    });
    e.http().Post("/tokenize", [](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body);
        const std::size_t n = body.value("content", "").size() / 4 + 1;
        res.set_content(json({{"tokens", std::vector<int>(n, 7)}}).dump(), "application/json");
    });
    e.http().Post("/v1/chat/completions", [&e, model](const httplib::Request& req, httplib::Response& res) {
        answer_chat(e, req, res, model);
    });
}

void add_ollama_routes(FakeEngine& e, const std::string& model, int num_ctx, int trained_context) {
    e.http().Get("/v1/models", [model](const httplib::Request&, httplib::Response& res) {
        const json j = {{"object", "list"},
                        {"data", {{{"id", model}, {"object", "model"}, {"created", 1700000000}, {"owned_by", "library"}}}}};
        res.set_content(j.dump(), "application/json");
    });
    // Ollama has no /props, /tokenize or /api/v0/models: its router answers "404 page not found".
    e.http().set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.status == 404 && res.body.empty()) res.set_content("404 page not found", "text/plain");
    });
    e.http().Post("/api/show", [model, num_ctx, trained_context](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body);
        if (body.value("model", "") != model) {
            res.status = 404;
            res.set_content(json({{"error", "model '" + body.value("model", "") + "' not found"}}).dump(),
                            "application/json");
            return;
        }
        std::string params = "stop \"<|eot_id|>\"";
        if (num_ctx > 0) params = "num_ctx " + std::to_string(num_ctx) + "\n" + params;
        const json j = {{"modelfile", "FROM llama3.2"},
                        {"parameters", params},
                        {"template", "{{ .Prompt }}"},
                        {"details", {{"family", "llama"}, {"parameter_size", "3.2B"}}},
                        {"model_info",
                         {{"general.architecture", "llama"},
                          {"general.parameter_count", 3212749888LL},
                          {"llama.context_length", trained_context},
                          {"llama.embedding_length", 3072}}}};
        res.set_content(j.dump(), "application/json");
    });
    e.http().Post("/v1/chat/completions", [&e, model](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body);
        if (body.value("model", "") != model) {
            ++e.chat_requests;
            res.status = 404;
            res.set_content(json({{"error",
                                   {{"message", "model \"" + body.value("model", "") + "\" not found, try pulling it first"},
                                    {"type", "api_error"},
                                    {"param", nullptr},
                                    {"code", nullptr}}}})
                                .dump(),
                            "application/json");
            return;
        }
        answer_chat(e, req, res, model);
    });
}

}  // namespace snapdoc::test
