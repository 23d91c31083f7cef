// Fake OpenAI-compatible engines for the remote client's tests: a cpp-httplib server (plain or TLS)
// on a free loopback port, with routes that answer as vLLM, llama-server and Ollama document and
// test their wire formats (model lists with their context fields, /props, /tokenize, /api/show,
// streamed chat chunks, their error objects). Every handler's wait is bounded.
#pragma once

#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace snapdoc::test {

class FakeEngine {
public:
    // TLS when cert/key files are given.
    explicit FakeEngine(const std::string& cert_file = {}, const std::string& key_file = {});
    ~FakeEngine();
    FakeEngine(const FakeEngine&) = delete;
    FakeEngine& operator=(const FakeEngine&) = delete;

    httplib::Server& http() { return *server_; }
    void start();  // bind 127.0.0.1:0 and serve (after the routes are set)
    int port() const { return port_; }
    std::string url(const std::string& path = "") const;

    std::atomic<int> chat_requests{0};
    std::atomic<bool> stopping{false};  // bounded waits in handlers end early when set
    std::string last_authorization;     // of the last chat request

private:
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    int port_ = 0;
    bool tls_ = false;
};

// An SSE body: one "data:" chunk per piece of `pieces` (chat.completion.chunk), then a chunk with
// finish_reason "stop", a usage chunk, and "data: [DONE]".
std::string sse_answer(const std::string& model, const std::vector<std::string>& pieces);
std::string sse_chunk(const std::string& model, const std::string& piece);

// Wire formats (the context each engine reports is given by `context`).
void add_vllm_routes(FakeEngine& e, const std::string& model, int context, const std::string& api_key = {});
void add_llama_server_routes(FakeEngine& e, const std::string& model, int n_ctx, const std::string& api_key = {});
// num_ctx 0: no num_ctx in the parameters (the architecture's context_length is then the context).
void add_ollama_routes(FakeEngine& e, const std::string& model, int num_ctx, int trained_context);

}  // namespace snapdoc::test
