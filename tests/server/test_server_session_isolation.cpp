// Held sessions are per client (issue 39, item 5): `cached_tokens` tells a client how much of its
// prompt matches a held session, so a session one client built must not serve (or be partly reused
// by) another's prompt. A client is its API key (and `user` field), else its `user` field and
// address; --share-sessions turns sharing back on. On an explicit document (one owner, several
// clients), what the last asker's prompt left after the document is not reused for another client.
#include <gtest/gtest.h>

#include <thread>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

// The pasted report and a question; `user` names the client when not empty.
json pasted(const std::string& question, const std::string& user) {
    json b = chat_body(demo_report() + "\n\nQuestion: " + question, 2);
    b["snapkv"] = {{"budget", 128}};
    if (!user.empty()) b["user"] = user;
    return b;
}

int cached(int port, const json& body, const std::map<std::string, std::string>& headers = {}) {
    const Reply r = http_post(port, "/v1/chat/completions", body.dump(), headers);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json()["usage"]["prompt_tokens_details"].value("cached_tokens", -1);
}

class ServerSessionIsolation : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
    static std::vector<std::string> args(std::vector<std::string> more = {}) {
        std::vector<std::string> a = {"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens",
                                      "1024"};
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }
};

TEST_F(ServerSessionIsolation, AnotherUsersPromptReusesNothingAndTheOwnersStillDoes) {
    ServerProcess s(args());
    EXPECT_EQ(cached(s.port(), pasted("What is the batch number for the green office?", "alice")), 0);
    EXPECT_EQ(cached(s.port(), pasted("What is the alarm code for the south office?", "bob")), 0);
    EXPECT_GT(cached(s.port(), pasted("Who runs the north office?", "alice")), 1000);
}

TEST_F(ServerSessionIsolation, AnotherKeysPromptReusesNothing) {
    ServerProcess s(args({"--api-key", "key-alice", "--api-key", "key-bob"}));
    EXPECT_EQ(cached(s.port(), pasted("What is the batch number for the green office?", ""),
                     {{"Authorization", "Bearer key-alice"}}),
              0);
    EXPECT_EQ(cached(s.port(), pasted("What is the alarm code for the south office?", ""),
                     {{"Authorization", "Bearer key-bob"}}),
              0);
}

TEST_F(ServerSessionIsolation, ShareSessionsLetsEveryClientReuseThem) {
    ServerProcess s(args({"--share-sessions"}));
    EXPECT_EQ(cached(s.port(), pasted("What is the batch number for the green office?", "alice")), 0);
    EXPECT_GT(cached(s.port(), pasted("What is the alarm code for the south office?", "bob")), 1000);
}

// A chat about document `id` with `messages` as `user`; its cached_tokens.
int ask_document(int port, const std::string& id, const json& messages, const std::string& user) {
    json b = {{"messages", messages}, {"document_id", id}, {"max_tokens", 2}, {"temperature", 0}, {"user", user}};
    return cached(port, b);
}

TEST_F(ServerSessionIsolation, AnotherClientReusesNothingOfTheLastAskersTurnsOnADocument) {
    ServerProcess s(args());
    const Reply up = post_json(s.port(), "/v1/documents", {{"text", "The vault code is 4711. The gate code is 1234."}});
    ASSERT_EQ(up.status, 202) << up.body;
    const std::string id = up.json()["id"];
    json doc;
    for (int i = 0; i < 300; ++i) {  // at most 30 s
        doc = http_get(s.port(), "/v1/documents/" + id).json();
        if (doc["status"] == "ready" || doc["status"] == "failed") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(doc["status"], "ready") << doc.dump();
    const int D = doc["tokens"];
    const json q1 = {{"role", "user"}, {"content", "What is the secret vault code, please?"}};
    const json later = json::array({q1, {{"role", "assistant"}, {"content", "It"}},
                                    {{"role", "user"}, {"content", "And the gate code?"}}});
    EXPECT_EQ(ask_document(s.port(), id, json::array({q1}), "alice"), D);
    // bob's conversation starts as alice's did: only the document is his to reuse.
    EXPECT_EQ(ask_document(s.port(), id, later, "bob"), D);
    // bob again, continuing his own: his turns are reused.
    EXPECT_GT(ask_document(s.port(), id, later, "bob"), D);
}

}  // namespace
}  // namespace snapdoc::test
