// Automatic and explicit document sessions: the server's greedy answer equals `snapdoc-cli ask`'s
// for the same document, question and budget; a second question on the same pasted document, or
// the same conversation continued, reuses the document's K/V (usage says so); an evicted session
// comes back from the on-disk K/V cache; stop strings and seeds.
#include <gtest/gtest.h>

#include <thread>

#include "tests/server/server_process.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
using snapdoc::testing::TempDir;

const char* kQ1 = "What is the batch number for the green office?";
const char* kQ2 = "What is the alarm code for the south office?";

json pasted(const std::string& question, int budget) {
    json b = chat_body(demo_report() + "\n\nQuestion: " + question, 256);
    b["snapkv"] = {{"budget", budget}};
    return b;
}

std::string content(const json& reply) {
    return reply["choices"][0]["message"]["content"].get<std::string>();
}

// The CLI's answers for kQ1, kQ2 at `budget` (greedy, no K/V cache).
std::vector<std::string> cli_answers(int budget, const std::filesystem::path& dir) {
    const auto out = dir / "ask.json";
    const CommandResult r =
        run_command(std::string(SNAPDOC_CLI_PATH) + " ask -m " + demo_model_path().string() + " --doc " +
                    repo_path("resources/samples/demo-report.txt").string() + " -q '" + kQ1 + "' -q '" + kQ2 +
                    "' --budget " + std::to_string(budget) + " --no-cache --json " + out.string() + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.output;
    const json j = json::parse(read_text(out));
    return {j["answers"][0]["answer"].get<std::string>(), j["answers"][1]["answer"].get<std::string>()};
}

class ServerSessions : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

TEST_F(ServerSessions, PastedDocumentAnswersEqualCliAskAndTheSecondQuestionReusesIt) {
    TempDir dir("server-equiv");
    const std::vector<std::string> cli = cli_answers(128, dir.path());
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens", "1024"});
    const json r1 = post_json(s.port(), "/v1/chat/completions", pasted(kQ1, 128)).json();
    ASSERT_TRUE(r1.contains("choices")) << r1.dump();
    EXPECT_EQ(content(r1), cli[0]);
    EXPECT_EQ(r1["usage"]["snapkv"]["session"], "new");
    EXPECT_EQ(r1["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
    EXPECT_GT(r1["usage"]["snapkv"]["compressed_tokens"], 1000);
    EXPECT_GT(r1["usage"]["snapkv"]["compression_ratio"].get<double>(), 5.0);
    EXPECT_FALSE(r1["citations"].empty());

    const json r2 = post_json(s.port(), "/v1/chat/completions", pasted(kQ2, 128)).json();
    EXPECT_EQ(content(r2), cli[1]);
    EXPECT_EQ(r2["usage"]["snapkv"]["session"], "ram");
    const int doc_tokens = r2["usage"]["snapkv"]["document_tokens"];
    EXPECT_GT(doc_tokens, 1500);
    EXPECT_GE(r2["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), doc_tokens);
}

TEST_F(ServerSessions, ExplicitDocumentAnswersEqualCliAsk) {
    TempDir dir("server-doc");
    const std::vector<std::string> cli = cli_answers(128, dir.path());
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens", "1024"});
    const json created = post_json(s.port(), "/v1/documents",
                                   {{"text", read_text(repo_path("resources/samples/demo-report.txt"))}})
                             .json();
    ASSERT_TRUE(created.contains("id")) << created.dump();
    const std::string id = created["id"];
    json doc;
    for (int i = 0; i < 600; ++i) {  // at most 60 s
        doc = http_get(s.port(), "/v1/documents/" + id).json();
        if (doc["status"] == "ready" || doc["status"] == "failed") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(doc["status"], "ready") << doc.dump();
    EXPECT_EQ(doc["progress"], 1.0);
    for (int q = 0; q < 2; ++q) {
        json b = chat_body(q == 0 ? kQ1 : kQ2, 256);
        b["document_id"] = id;
        b["snapkv"] = {{"budget", 128}};
        const json r = post_json(s.port(), "/v1/chat/completions", b).json();
        ASSERT_TRUE(r.contains("choices")) << r.dump();
        EXPECT_EQ(content(r), cli[q]);
        EXPECT_EQ(r["usage"]["snapkv"]["session"], "ram");
        EXPECT_GE(r["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), doc["tokens"].get<int>());
    }
    EXPECT_EQ(http_get(s.port(), "/v1/documents").json()["data"].size(), 1u);
    const CommandResult del =
        run_command("curl -s -X DELETE http://127.0.0.1:" + std::to_string(s.port()) + "/v1/documents/" + id);
    EXPECT_EQ(json::parse(del.output, nullptr, false)["deleted"], true) << del.output;
    EXPECT_EQ(http_get(s.port(), "/v1/documents/" + id).status, 404);
}

TEST_F(ServerSessions, ContinuedConversationReusesTheDocumentAndEvictedOnesComeBackFromTheKvCache) {
    TempDir dir("server-kv");
    // A RAM cap of 0 keeps only the session in use: every other one is evicted at once.
    ServerProcess s({"-m", demo_model_path().string(), "--cache-dir", (dir.path() / "kv").string(),
                     "--snapkv-min-tokens", "1024", "--session-ram-mb", "0"});
    const json first = post_json(s.port(), "/v1/chat/completions", pasted(kQ1, 128)).json();
    ASSERT_TRUE(first.contains("choices")) << first.dump();
    json b = pasted(kQ1, 128);
    b["messages"].push_back({{"role", "assistant"}, {"content", content(first)}});
    b["messages"].push_back({{"role", "user"}, {"content", std::string("Question: ") + kQ2}});
    const json cont = post_json(s.port(), "/v1/chat/completions", b).json();
    ASSERT_TRUE(cont.contains("choices")) << cont.dump();
    EXPECT_EQ(cont["usage"]["snapkv"]["session"], "ram");
    EXPECT_GE(cont["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(),
              cont["usage"]["snapkv"]["document_tokens"].get<int>());
    EXPECT_NE(content(cont).find("3013"), std::string::npos) << content(cont);

    // Another prompt evicts the document session; the document then comes back from its file.
    ASSERT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hello", 4)).status, 200);
    EXPECT_GE(http_get(s.port(), "/props").json()["sessions"]["evicted"].get<int>(), 1);
    const json back = post_json(s.port(), "/v1/chat/completions", pasted(kQ2, 128)).json();
    EXPECT_EQ(back["usage"]["snapkv"]["session"], "kv-cache") << back.dump();
    EXPECT_NE(content(back).find("3013"), std::string::npos) << content(back);
}

TEST_F(ServerSessions, StopStringsSeedsAndCompletions) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    json b = chat_body(
        "The alarm code for the south office is 3013.\n\nQuestion: What is the alarm code for the south "
        "office?",
        32);
    const json plain = post_json(s.port(), "/v1/chat/completions", b).json();
    const std::string full = content(plain);
    ASSERT_NE(full.find("south"), std::string::npos) << full;
    b["stop"] = {"south", "never-seen"};
    const json stopped = post_json(s.port(), "/v1/chat/completions", b).json();
    EXPECT_EQ(content(stopped), full.substr(0, full.find("south")));
    EXPECT_EQ(stopped["choices"][0]["finish_reason"], "stop");

    b.erase("stop");
    b["temperature"] = 1.5;
    b["seed"] = 99;
    b["max_tokens"] = 24;
    b["ignore_eos"] = true;
    const std::string a1 = content(post_json(s.port(), "/v1/chat/completions", b).json());
    const std::string a2 = content(post_json(s.port(), "/v1/chat/completions", b).json());
    EXPECT_EQ(a1, a2) << "the same seed must give the same sample";
    const json len = post_json(s.port(), "/v1/chat/completions", b).json();
    EXPECT_EQ(len["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(len["usage"]["completion_tokens"], 24);

    const json c = post_json(s.port(), "/v1/completions",
                             {{"prompt", "The alarm code is 3013."}, {"max_tokens", 4}, {"temperature", 0}})
                       .json();
    ASSERT_TRUE(c.contains("choices")) << c.dump();
    EXPECT_EQ(c["object"], "text_completion");
    EXPECT_TRUE(c["choices"][0]["text"].is_string());
}

}  // namespace
}  // namespace snapdoc::test
