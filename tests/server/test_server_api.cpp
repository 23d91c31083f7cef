// snapdoc-server's HTTP surface with the demo model: health, models, props, tokenize, the OpenAI
// error shape and statuses (400 naming the field, 404, 413, 401, context overflow before any
// prefill), CORS, and 1,000 fuzzed request bodies that must each get a well-formed answer.
#include <gtest/gtest.h>

#include <random>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

class ServerApi : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!std::filesystem::exists(demo_model_path())) return;
        server_ = new ServerProcess({"-m", demo_model_path().string(), "--no-cache", "--ctx", "4096",
                                     "--max-body-mb", "1", "--log-level", "warn"});
    }
    static void TearDownTestSuite() {
        delete server_;
        server_ = nullptr;
    }
    void SetUp() override {
        if (!server_) GTEST_SKIP() << "demo model " << demo_model_path() << " is absent; skipping";
    }
    static int port() { return server_->port(); }
    static ServerProcess* server_;
};
ServerProcess* ServerApi::server_ = nullptr;

void expect_error(const Reply& r, int status, const std::string& param = {}, const std::string& code = {}) {
    EXPECT_EQ(r.status, status) << r.body;
    const json j = r.json();
    ASSERT_TRUE(j.is_object() && j.contains("error")) << r.body;
    EXPECT_TRUE(j["error"]["message"].is_string()) << r.body;
    EXPECT_TRUE(j["error"]["type"].is_string()) << r.body;
    if (!param.empty()) {
        EXPECT_EQ(j["error"]["param"], param) << r.body;
    }
    if (!code.empty()) {
        EXPECT_EQ(j["error"]["code"], code) << r.body;
    }
}

TEST_F(ServerApi, HealthModelsAndProps) {
    EXPECT_EQ(http_get(port(), "/health").json()["status"], "ok");
    const json models = http_get(port(), "/v1/models").json();
    ASSERT_EQ(models["object"], "list");
    EXPECT_EQ(models["data"][0]["id"], "snapdoc-demo");  // the demo GGUF's general.name
    const json props = http_get(port(), "/props").json();
    EXPECT_EQ(props["context_length"], 4096);
    EXPECT_EQ(props["chat_template"], "chatml");
    EXPECT_EQ(props["snapkv"]["budget"], 1024);
    EXPECT_EQ(props["snapkv"]["min_tokens"], 4096);
}

TEST_F(ServerApi, TokenizeDetokenizeRoundTrip) {
    const std::string text = "The batch number for the green office is 7003. <|im_end|> stays text.";
    const json t = post_json(port(), "/tokenize", {{"content", text}}).json();
    ASSERT_TRUE(t["tokens"].is_array()) << t.dump();
    EXPECT_GT(t["tokens"].size(), 10u);
    const json d = post_json(port(), "/detokenize", {{"tokens", t["tokens"]}}).json();
    EXPECT_EQ(d["content"], text);
    expect_error(post_json(port(), "/detokenize", {{"tokens", {1, -4}}}), 400, "tokens");
}

TEST_F(ServerApi, ErrorsHaveTheOpenAiShapeAndNameTheField) {
    expect_error(http_post(port(), "/v1/chat/completions", "{\"messages\": [}"), 400, {}, "invalid_json");
    expect_error(http_post(port(), "/v1/chat/completions", "[1, 2]"), 400);
    expect_error(post_json(port(), "/v1/chat/completions", json::object()), 400, "messages");
    json b = chat_body("hello", 4);
    b["n"] = 2;
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "n");
    b = chat_body("hello", 4);
    b["temperature"] = "hot";
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "temperature");
    b = chat_body("hello", 4);
    b["stop"] = {"a", 3};
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "stop[1]");
    b = chat_body("hello", 4);
    b["messages"][0]["role"] = "tool";
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "messages[0].role");
    b = chat_body("hello", 4);
    b["snapkv"] = {{"budget", 8}, {"window", 32}};
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "snapkv");
    b = chat_body("hello", 4);
    b["snapkv"] = {{"bugdet", 8}};
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "snapkv.bugdet");
    b = chat_body("hello", 4);
    b["document_id"] = "doc-none";
    expect_error(post_json(port(), "/v1/chat/completions", b), 404);
    expect_error(post_json(port(), "/v1/completions", {{"prompt", 5}}), 400, "prompt");
    expect_error(http_get(port(), "/v1/nothing-here"), 404);
    expect_error(http_get(port(), "/v1/documents/doc-none"), 404);
}

TEST_F(ServerApi, PromptOverTheContextIsRefusedBeforeAnyPrefill) {
    const json before = http_get(port(), "/props").json()["stats"];
    std::string long_text;
    for (int i = 0; i < 900; ++i) long_text += "The lamp in the east school was bright. ";
    const Reply r = post_json(port(), "/v1/chat/completions", chat_body(long_text, 16));
    expect_error(r, 400, "messages", "exceed_context_size_error");
    EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("4096"), std::string::npos) << r.body;
    json b = chat_body("short", 5000);
    expect_error(post_json(port(), "/v1/chat/completions", b), 400, "messages", "exceed_context_size_error");
    const json after = http_get(port(), "/props").json()["stats"];
    EXPECT_EQ(before, after) << "a refused prompt must not reach the engine";
}

TEST_F(ServerApi, ASecondServerOnTheSamePortIsRefused) {
    // Two servers on one port would split the connections between them (SO_REUSEPORT): the second
    // must fail to start, in words, and the first keep serving.
    const CommandResult r = run_command(std::string(SNAPDOC_SERVER_PATH) + " -m " + demo_model_path().string() +
                                        " --no-cache --port " + std::to_string(port()) + " 2>&1 </dev/null");
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("cannot listen on"), std::string::npos) << r.output;
    EXPECT_EQ(http_get(port(), "/health").status, 200);
}

TEST_F(ServerApi, HundredMegabyteBodyIsRefusedWith413) {
    // curl streams 100 MB of zeros; the server answers 413 from Content-Length (or drops the
    // connection) without reading it, and keeps serving.
    const CommandResult r = run_command(
        "head -c 100000000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: "
        "application/json' "
        "--max-time 60 --data-binary @- http://127.0.0.1:" +
        std::to_string(port()) + "/v1/chat/completions 2>/dev/null");
    if (r.output.empty() || r.output == "000") {
        SUCCEED() << "the server closed the connection before curl read a status";
    } else {
        EXPECT_EQ(r.output, "413");
    }
    EXPECT_EQ(http_get(port(), "/health").status, 200);
}

TEST_F(ServerApi, ThousandMalformedBodiesEachGetAWellFormedAnswer) {
    std::mt19937 rng(1234);
    const json base = {
        {"model", "snapdoc"},
        {"messages",
         {{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Hi there"}}}},
        {"max_tokens", 1},
        {"temperature", 0},
        {"stop", {"x"}},
        {"snapkv", {{"budget", 64}}}};
    const std::vector<json> odd_values = {nullptr,
                                          true,
                                          -1,
                                          0,
                                          1e308,
                                          -7.5,
                                          "",
                                          "x",
                                          json::array(),
                                          json::object(),
                                          json::array({1, "a"}),
                                          4294967296LL,
                                          "\xc3\x28"};
    const std::vector<std::string> fields = {
        "model",     "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p",       "seed",
        "stop",      "n",        "stream",     "stream_options",        "snapkv",      "document_id", "top_k",
        "ignore_eos"};
    int ok = 0, refused = 0;
    for (int i = 0; i < 1000; ++i) {
        std::string body;
        const int kind = i % 4;
        if (kind == 0) {  // a field set to an odd value
            json b = base;
            b[fields[rng() % fields.size()]] = odd_values[rng() % odd_values.size()];
            body = b.dump(-1, ' ', false, json::error_handler_t::replace);
        } else if (kind == 1) {  // a message field set to an odd value
            json b = base;
            const char* keys[] = {"role", "content"};
            b["messages"][rng() % 2][keys[rng() % 2]] = odd_values[rng() % odd_values.size()];
            body = b.dump(-1, ' ', false, json::error_handler_t::replace);
        } else if (kind == 2) {  // truncated
            body = base.dump();
            body.resize(rng() % body.size());
        } else {  // bytes flipped
            body = base.dump();
            for (int k = 0; k < 3; ++k) body[rng() % body.size()] = static_cast<char>(rng() % 256);
        }
        const Reply r = http_post(port(), "/v1/chat/completions", body);
        ASSERT_NE(r.status, 0) << "no response to body " << i << ": " << body;
        if (r.status == 200 && (r.body.rfind("data: ", 0) == 0 || r.body.rfind(": ", 0) == 0)) {
            // "stream": true survived the mutation: an SSE body (maybe opening with a keep-alive comment)
            ++ok;
            continue;
        }
        const json j = r.json();
        ASSERT_TRUE(j.is_object()) << "body " << i << " got a non-JSON answer: " << r.body;
        if (r.status == 200) {
            ++ok;
            ASSERT_TRUE(j.contains("choices") || j.is_object()) << r.body;
        } else {
            ++refused;
            ASSERT_TRUE(r.status == 400 || r.status == 404)
                << r.status << " for body " << body << ": " << r.body;
            ASSERT_TRUE(j.contains("error") && j["error"]["message"].is_string()) << r.body;
        }
    }
    EXPECT_GT(refused, 500);
    EXPECT_EQ(http_get(port(), "/health").status, 200);
    std::printf("1000 fuzzed bodies: %d answered, %d refused\n", ok, refused);
}

TEST(ServerAuth, ApiKeyAndCors) {
    if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--api-key", "sekrit", "--cors", "*"});
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);  // health stays open for probes
    expect_error(http_get(s.port(), "/v1/models"), 401, {}, "invalid_api_key");
    expect_error(http_get(s.port(), "/v1/models", {{"Authorization", "Bearer wrong"}}), 401);
    EXPECT_EQ(http_get(s.port(), "/v1/models", {{"Authorization", "Bearer sekrit"}}).status, 200);
    const CommandResult r = run_command("curl -s -i -X OPTIONS http://127.0.0.1:" + std::to_string(s.port()) +
                                        "/v1/chat/completions");
    EXPECT_NE(r.output.find("204"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Access-Control-Allow-Origin: *"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace snapdoc::test
