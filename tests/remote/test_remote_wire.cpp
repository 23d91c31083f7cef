// The remote client's pieces on their own: base URL normalisation, the engines' error objects, the
// SSE reader, and discovery of each engine's kind and context against the fakes.
#include <gtest/gtest.h>

#include "app/remote/remote_chat.h"
#include "app/remote/remote_http.h"
#include "app/remote/remote_models.h"
#include "app/remote/remote_tokens.h"
#include "app/remote/sse_reader.h"
#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"
#include "tests/remote/fake_engine.h"

namespace snapdoc::test {
namespace {

using remote::normalize_base_url;

TEST(RemoteUrl, WithOrWithoutV1AndTrailingSlashes) {
    EXPECT_EQ(normalize_base_url("http://gpu:8000"), "http://gpu:8000");
    EXPECT_EQ(normalize_base_url("http://gpu:8000/"), "http://gpu:8000");
    EXPECT_EQ(normalize_base_url("http://gpu:8000/v1"), "http://gpu:8000");
    EXPECT_EQ(normalize_base_url("http://gpu:8000/v1/"), "http://gpu:8000");
    EXPECT_EQ(normalize_base_url("http://gpu:8000/v1///"), "http://gpu:8000");
    EXPECT_EQ(normalize_base_url("  https://example.org/llm/v1  "), "https://example.org/llm");
    EXPECT_EQ(normalize_base_url("HTTPS://Example.org/llm/V1"), "https://Example.org/llm");
    EXPECT_EQ(normalize_base_url("http://gpu:8000/v10"), "http://gpu:8000/v10");  // not a /v1 suffix
    remote::RemoteEndpoint ep;
    ep.root = normalize_base_url("http://h:1/v1/");
    EXPECT_EQ(ep.v1("/models"), "http://h:1/v1/models");
    EXPECT_EQ(ep.at("/props"), "http://h:1/props");
}

TEST(RemoteUrl, RefusesWhatIsNotAnHttpUrl) {
    for (const char* bad : {"", "   ", "gpu:8000", "ftp://gpu/v1", "http://", "http:///v1", "http://h/v1?x=1",
                            "http://h/v1#frag", "http://h /v1"})
        EXPECT_THROW(normalize_base_url(bad), Error) << bad;
}

TEST(RemoteLayout, TheDocumentAndQuestionAsEveryLocalTemplateLaysThemOut) {
    EXPECT_EQ(document_question_text("\n  The report.\n\nPart two. \n\n", "  Why? "),
              "The report.\n\nPart two.\n\nQuestion: Why?");
    EXPECT_EQ(followup_question_text(" And then?\n"), "Question: And then?");
    EXPECT_THROW(document_question_text(" \n", "q"), Error);
    EXPECT_THROW(document_question_text("doc", "  "), Error);
}

TEST(RemoteErrors, EachEngineErrorObjectInItsOwnWords) {
    using remote::server_error_text;
    // OpenAI, llama-server and newer vLLM.
    EXPECT_EQ(server_error_text(R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}})"),
              "the request exceeds the available context size, try increasing it");
    // Ollama's native routes and vLLM's key check.
    EXPECT_EQ(server_error_text(R"({"error":"model 'x' not found"})"), "model 'x' not found");
    // vLLM's ErrorResponse.
    EXPECT_EQ(server_error_text(R"({"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400})"),
              "This model's maximum context length is 4096 tokens.");
    EXPECT_EQ(server_error_text(R"({"detail":"Not Found"})"), "Not Found");
    EXPECT_EQ(server_error_text("404 page not found\n"), "404 page not found");
    EXPECT_EQ(server_error_text(""), "(no message)");
}

TEST(RemoteSse, EventsSplitAnywhereCrLfCommentsAndMultiLineData) {
    const std::string stream =
        ": ping\n\ndata: {\"a\":1}\n\ndata: line1\ndata: line2\r\n\r\nevent: x\nid: 3\ndata: [DONE]\n\n";
    for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, stream.size()}) {
        remote::SseReader r;
        std::vector<std::string> got;
        for (std::size_t i = 0; i < stream.size(); i += piece)
            r.feed(std::string_view(stream).substr(i, piece), [&](const std::string& d) { got.push_back(d); });
        r.finish([&](const std::string& d) { got.push_back(d); });
        ASSERT_EQ(got.size(), 3u) << piece;
        EXPECT_EQ(got[0], "{\"a\":1}");
        EXPECT_EQ(got[1], "line1\nline2");
        EXPECT_EQ(got[2], "[DONE]");
    }
    remote::SseReader r;  // an event the stream ended without its blank line
    std::vector<std::string> got;
    r.feed("data: tail", [&](const std::string& d) { got.push_back(d); });
    EXPECT_TRUE(got.empty());
    r.finish([&](const std::string& d) { got.push_back(d); });
    EXPECT_EQ(got, std::vector<std::string>{"tail"});
}

remote::RemoteEndpoint endpoint_of(const FakeEngine& e, const std::string& key = {}) {
    remote::RemoteEndpoint ep;
    ep.root = normalize_base_url(e.url("/v1/"));
    ep.api_key = key;
    ep.connect_timeout_ms = 5000;
    ep.stall_timeout_ms = 10000;
    ep.request_timeout_ms = 10000;
    return ep;
}

TEST(RemoteDiscover, VllmContextFromMaxModelLenAndItsTokenizer) {
    FakeEngine e;
    add_vllm_routes(e, "meta-llama/Llama-3.1-8B-Instruct", 4096);
    e.start();
    const auto ep = endpoint_of(e);
    const auto s = remote::discover(ep);
    EXPECT_EQ(s.kind, remote::EngineKind::Vllm);
    ASSERT_EQ(s.models.size(), 1u);
    EXPECT_EQ(s.models[0].context, 4096);
    EXPECT_EQ(s.models[0].context_source, "/v1/models max_model_len");
    const nlohmann::json messages = {{{"role", "user"}, {"content", std::string(400, 'x')}}};
    const auto count = remote::count_prompt_tokens(ep, s.kind, s.models[0].id, messages);
    EXPECT_TRUE(count.exact);
    EXPECT_EQ(count.tokens, 110);  // the fake's 4 bytes a token + 10
}

TEST(RemoteDiscover, LlamaServerContextFromProps) {
    FakeEngine e;
    add_llama_server_routes(e, "qwen2.5-1.5b-instruct-q4_k_m.gguf", 2048);
    e.start();
    const auto s = remote::discover(endpoint_of(e));
    EXPECT_EQ(s.kind, remote::EngineKind::LlamaServer);
    EXPECT_EQ(s.models.at(0).context, 2048);  // n_ctx, not the meta's n_ctx_train
    EXPECT_EQ(s.models.at(0).context_source, "llama-server /props n_ctx");
}

TEST(RemoteDiscover, OllamaNumCtxElseTheArchitecturesContextLength) {
    {
        FakeEngine e;
        add_ollama_routes(e, "llama3.2:latest", 8192, 131072);
        e.start();
        const auto s = remote::discover(endpoint_of(e));
        EXPECT_EQ(s.kind, remote::EngineKind::Ollama);
        EXPECT_EQ(s.models.at(0).context, 8192);
        EXPECT_EQ(s.models.at(0).context_source, "Ollama /api/show parameters num_ctx");
    }
    FakeEngine e;
    add_ollama_routes(e, "llama3.2:latest", 0, 131072);
    e.start();
    const auto ep = endpoint_of(e);
    const auto s = remote::discover(ep);
    EXPECT_EQ(s.kind, remote::EngineKind::Ollama);
    EXPECT_EQ(s.models.at(0).context, 131072);
    EXPECT_EQ(s.models.at(0).context_source, "Ollama /api/show model_info llama.context_length");
    // No /tokenize: estimated at 3 bytes a token (+ the template's share per message).
    const nlohmann::json messages = {{{"role", "user"}, {"content", std::string(300, 'x')}}};
    const auto count = remote::count_prompt_tokens(ep, s.kind, s.models[0].id, messages);
    EXPECT_FALSE(count.exact);
    EXPECT_EQ(count.tokens, 100 + remote::kTemplateTokensPerMessage);
}

TEST(RemoteDiscover, LmStudioTheLoadedContextElseTheMaximum) {
    FakeEngine e;
    e.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[{"id":"devstral-small-2505-mlx","object":"model","owned_by":"organization_owner"},
                           {"id":"qwen2.5-7b-instruct","object":"model","owned_by":"organization_owner"}]})",
                        "application/json");
    });
    e.http().Get("/api/v0/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[
            {"id":"devstral-small-2505-mlx","object":"model","type":"llm","arch":"mistral","state":"loaded",
             "max_context_length":131072,"loaded_context_length":4096},
            {"id":"qwen2.5-7b-instruct","object":"model","type":"llm","arch":"qwen2","state":"not-loaded",
             "max_context_length":32768}]})",
                        "application/json");
    });
    // LM Studio answers routes it does not have with an error object.
    e.http().Get("/props", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"j({"error":"Unexpected endpoint or method. (GET /props)"})j", "application/json");
    });
    e.start();
    const auto s = remote::discover(endpoint_of(e));
    EXPECT_EQ(s.kind, remote::EngineKind::LmStudio);
    ASSERT_EQ(s.models.size(), 2u);
    EXPECT_EQ(s.models[0].context, 4096);
    EXPECT_EQ(s.models[0].context_source, "LM Studio /api/v0/models loaded_context_length");
    EXPECT_EQ(s.models[1].context, 32768);
    EXPECT_EQ(s.models[1].context_source, "LM Studio /api/v0/models max_context_length");
}

TEST(RemoteDiscover, ChooseModelNamesWhatTheServerLists) {
    remote::RemoteServer s;
    s.models = {{"a", 0, ""}, {"b", 0, ""}};
    EXPECT_EQ(remote::choose_model(s, "b").id, "b");
    try {
        remote::choose_model(s, "");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("a, b"), std::string::npos) << e.what();
    }
    EXPECT_THROW(remote::choose_model(s, "c"), Error);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(RemoteChat, StreamsTheAnswerWithTheKeyAndUsage) {
    FakeEngine e;
    add_vllm_routes(e, "m", 4096, "k1");
    e.start();
    remote::RemoteChatRequest req;
    req.model = "m";
    req.messages = {{{"role", "user"}, {"content", "hi"}}};
    std::string streamed;
    const auto r = remote::stream_chat(endpoint_of(e, "k1"), req, [&](const std::string& t) { streamed += t; }, nullptr);
    EXPECT_EQ(streamed, "The answer is 42.");
    EXPECT_EQ(r.text, streamed);
    EXPECT_EQ(r.finish_reason, "stop");
    EXPECT_TRUE(r.citations.is_null());
    EXPECT_EQ(r.usage.value("completion_tokens", 0), 3);
    EXPECT_EQ(e.last_authorization, "Bearer k1");
}

TEST(RemoteChat, WrongKeyIs401InTheServersWords) {
    FakeEngine v;
    add_vllm_routes(v, "m", 4096, "right");
    v.start();
    const std::string a = error_of([&] { remote::discover(endpoint_of(v, "wrong")); });
    EXPECT_NE(a.find("HTTP 401: Unauthorized"), std::string::npos) << a;
    EXPECT_NE(a.find("check --api-key"), std::string::npos) << a;
    FakeEngine l;
    add_llama_server_routes(l, "m", 2048, "right");
    l.start();
    const std::string b = error_of([&] { remote::discover(endpoint_of(l)); });
    EXPECT_NE(b.find("HTTP 401: Invalid API Key"), std::string::npos) << b;
    EXPECT_NE(b.find("give it with --api-key"), std::string::npos) << b;
}

TEST(RemoteChat, ServerContextAndModelErrorsAreShownAsTheServerSaysThem) {
    FakeEngine v;
    add_vllm_routes(v, "m", 100, "");
    v.start();
    remote::RemoteChatRequest req;
    req.model = "m";
    req.max_tokens = 50;
    req.messages = {{{"role", "user"}, {"content", std::string(1000, 'x')}}};
    const std::string a = error_of([&] { remote::stream_chat(endpoint_of(v), req, nullptr, nullptr); });
    EXPECT_NE(a.find("HTTP 400: This model's maximum context length is 100 tokens."), std::string::npos) << a;
    FakeEngine o;
    add_ollama_routes(o, "llama3.2:latest", 0, 8192);
    o.start();
    req.model = "nope";
    const std::string b = error_of([&] { remote::stream_chat(endpoint_of(o), req, nullptr, nullptr); });
    EXPECT_NE(b.find("HTTP 404: model \"nope\" not found, try pulling it first"), std::string::npos) << b;
}

TEST(RemoteChat, AnErrorInsideTheStreamStopsIt) {
    FakeEngine e;
    e.http().Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(sse_chunk("m", "partial ") +
                            "data: {\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"InternalServerError\",\"code\":500}}\n\n",
                        "text/event-stream");
    });
    e.start();
    remote::RemoteChatRequest req;
    req.model = "m";
    req.messages = {{{"role", "user"}, {"content", "hi"}}};
    const std::string a = error_of([&] { remote::stream_chat(endpoint_of(e), req, nullptr, nullptr); });
    EXPECT_NE(a.find("the server stopped with an error: CUDA out of memory"), std::string::npos) << a;
}

TEST(RemoteChat, AServerThatDiesMidAnswerIsAnErrorNotAnAnswer) {
    FakeEngine e;
    e.http().Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider("text/event-stream", [](size_t offset, httplib::DataSink& sink) {
            if (offset > 0) return false;  // the connection is dropped after the first chunk
            const std::string c = sse_chunk("m", "The answer");
            sink.write(c.data(), c.size());
            return true;
        });
    });
    e.start();
    remote::RemoteChatRequest req;
    req.model = "m";
    req.messages = {{{"role", "user"}, {"content", "hi"}}};
    std::string streamed;
    const std::string a = error_of([&] {
        remote::stream_chat(endpoint_of(e), req, [&](const std::string& t) { streamed += t; }, nullptr);
    });
    EXPECT_EQ(streamed, "The answer");
    EXPECT_TRUE(a.find("cut before the answer ended") != std::string::npos ||
                a.find("closed the stream before the answer ended") != std::string::npos)
        << a;
}

TEST(RemoteChat, ASilentServerEndsAtTheStallTimeout) {
    FakeEngine e;
    e.http().Post("/v1/chat/completions", [&e](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider("text/event-stream", [&e](size_t offset, httplib::DataSink& sink) {
            if (offset == 0) {
                const std::string c = sse_chunk("m", "thinking");
                sink.write(c.data(), c.size());
                return true;
            }
            // Then nothing, for at most 5 s (ends early when the test is done).
            for (int i = 0; i < 50 && !e.stopping; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return false;
        });
    });
    e.start();
    auto ep = endpoint_of(e);
    ep.stall_timeout_ms = 1000;
    remote::RemoteChatRequest req;
    req.model = "m";
    req.messages = {{{"role", "user"}, {"content", "hi"}}};
    const auto t0 = std::chrono::steady_clock::now();
    const std::string a = error_of([&] { remote::stream_chat(ep, req, nullptr, nullptr); });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(a.find("the server sent nothing for 1 s (stall timeout"), std::string::npos) << a;
    EXPECT_LT(s, 4.0);
}

TEST(RemoteChat, NobodyListeningIsAClearError) {
    int port;
    {
        FakeEngine e;
        e.start();
        port = e.port();
    }  // closed again: connecting is refused
    remote::RemoteEndpoint ep;
    ep.root = "http://127.0.0.1:" + std::to_string(port);
    ep.connect_timeout_ms = 2000;
    const std::string a = error_of([&] { remote::discover(ep); });
    EXPECT_NE(a.find("cannot connect"), std::string::npos) << a;
}

}  // namespace
}  // namespace snapdoc::test
