// Real clients no one here wrote: curl for raw SSE and malformed requests, and the official
// `openai` npm package (installed from the npm registry into the build folder on first use;
// skipped with a message when node/npm or the registry is unavailable).
#include <gtest/gtest.h>

#include <sstream>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

class ServerClients : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

TEST_F(ServerClients, CurlSeesOpenAiServerSentEvents) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    json b = chat_body(
        "The alarm code for the south office is 3013.\n\nQuestion: What is the alarm code for the south "
        "office?",
        32, true);
    b["stream_options"] = {{"include_usage", true}};
    const std::string url = "http://127.0.0.1:" + std::to_string(s.port());
    const CommandResult r = run_command("curl -sN -H 'Content-Type: application/json' --max-time 60 -d '" +
                                        b.dump() + "' " + url + "/v1/chat/completions");
    ASSERT_EQ(r.status, 0) << r.output;
    // Every event is "data: ...\n\n" (comments start with ':'); chunks, a finish_reason, a usage
    // chunk with empty choices, then [DONE] last.
    std::istringstream in(r.output);
    std::string line;
    std::vector<json> chunks;
    bool done = false;
    std::string text;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == ':') continue;
        ASSERT_EQ(line.rfind("data: ", 0), 0u) << line;
        ASSERT_FALSE(done) << "data after [DONE]";
        const std::string data = line.substr(6);
        if (data == "[DONE]") {
            done = true;
            continue;
        }
        chunks.push_back(json::parse(data));
        ASSERT_EQ(chunks.back()["object"], "chat.completion.chunk");
        ASSERT_EQ(chunks.back()["id"], chunks.front()["id"]);
    }
    ASSERT_TRUE(done);
    ASSERT_GE(chunks.size(), 3u);
    EXPECT_EQ(chunks.front()["choices"][0]["delta"]["role"], "assistant");
    for (std::size_t i = 0; i + 2 < chunks.size(); ++i) {
        EXPECT_TRUE(chunks[i]["choices"][0]["finish_reason"].is_null());
        text += chunks[i]["choices"][0]["delta"]["content"].get<std::string>();
    }
    EXPECT_EQ(chunks[chunks.size() - 2]["choices"][0]["finish_reason"], "stop");
    EXPECT_TRUE(chunks.back()["choices"].empty());
    EXPECT_EQ(chunks.back()["usage"]["completion_tokens"].get<int>() > 0, true);
    EXPECT_NE(text.find("3013"), std::string::npos) << text;

    const CommandResult bad =
        run_command("curl -s -w ' %{http_code}' -d '{\"messages\": 3' " + url + "/v1/chat/completions");
    EXPECT_NE(bad.output.find("invalid_json"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find(" 400"), std::string::npos) << bad.output;
}

TEST_F(ServerClients, OfficialOpenAiNpmClient) {
    if (run_command("node --version 2>&1").status != 0 || run_command("npm --version 2>&1").status != 0)
        GTEST_SKIP() << "node/npm not installed; skipping the openai npm client test";
    const std::string npm_dir = SNAPDOC_NPM_DIR;
    if (!std::filesystem::exists(npm_dir + "/node_modules/openai/package.json")) {
        const CommandResult r = run_command("npm install --prefix " + npm_dir +
                                            " --no-audit --no-fund --loglevel=error openai@4 2>&1");
        if (r.status != 0)
            GTEST_SKIP() << "npm could not install openai@4 (registry unreachable?): " << r.output;
    }
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--api-key", "test-key"});
    const CommandResult r =
        run_command("node " + repo_path("tests/server/openai_client.mjs").string() +
                    " http://127.0.0.1:" + std::to_string(s.port()) + "/v1 " + npm_dir + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.output;
    std::printf("%s", r.output.c_str());
}

}  // namespace
}  // namespace snapdoc::test
