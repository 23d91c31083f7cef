// The queue is fair across clients (round-robin over each client's FIFO: the "user" field, else
// the Authorization header, else the address), a client's share can be capped with a clear 503,
// and a client that leaves a non-streamed request stops its generation.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

class ServerFairness : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

// A request that keeps the engine busy for a while (a fixed number of tokens).
json long_request(int tokens) {
    json b = chat_body("The alarm code for the south office is 3013.\n\nQuestion: What is the alarm code?",
                       tokens);
    b["ignore_eos"] = true;
    return b;
}

// Waits (bounded: 20 s) until `pred` holds for /props.
template <typename Pred>
json wait_props(int port, Pred pred) {
    json props;
    for (int i = 0; i < 400; ++i) {
        props = http_get(port, "/props").json();
        if (pred(props)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return props;
}

TEST_F(ServerFairness, OneClientsQueuedRequestsDoNotStarveAnotherClientsOne) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    const std::string body = long_request(250).dump();
    std::mutex mu;
    std::vector<std::string> finished;  // in the order the answers came back
    const auto send = [&](const std::string& who) {
        const Reply r =
            http_post(s.port(), "/v1/chat/completions", body, {{"Authorization", "Bearer " + who}});
        EXPECT_EQ(r.status, 200) << r.body;
        std::lock_guard lock(mu);
        finished.push_back(who);
    };
    std::vector<std::thread> a;
    for (int i = 0; i < 6; ++i) a.emplace_back(send, "client-a");
    // One of A's requests runs and at least two wait; then B asks once.
    const json props = wait_props(s.port(), [](const json& p) { return p["queue"]["waiting"] >= 2; });
    const int a_waiting = props["queue"]["waiting"];
    EXPECT_EQ(props["queue"]["clients_waiting"], 1);
    std::thread b(send, "client-b");
    b.join();
    for (auto& t : a) t.join();
    ASSERT_GE(a_waiting, 2) << props.dump();
    ASSERT_EQ(finished.size(), 7u);
    const auto after_b = finished.end() - std::find(finished.begin(), finished.end(), "client-b") - 1;
    // Round-robin: B runs right after the request running when it came, so all of A's waiting
    // ones but at most one (started between the look at /props and B's request) finish after it.
    // First-in-first-out would finish every one of A's first.
    EXPECT_GE(after_b, a_waiting - 1) << "B's request waited behind A's queued ones";
}

// A long request from `user` through curl, which hangs up after `seconds` (so the generation
// stops then, however fast the machine); returns curl's status.
int curl_request(int port, const std::string& user, int seconds) {
    json b = long_request(8000);
    b["user"] = user;
    return run_command("curl -s -o /dev/null -m " + std::to_string(seconds) +
                       " -H 'Content-Type: application/json' -d '" + b.dump() +
                       "' http://127.0.0.1:" + std::to_string(port) + "/v1/chat/completions")
        .status;
}

TEST_F(ServerFairness, AClientOverItsShareGetsA503AndAnotherClientStillGetsIn) {
    ServerProcess s(
        {"-m", demo_model_path().string(), "--no-cache", "--queue", "8", "--queue-per-client", "1"});
    // Alice: one request running, one waiting (her share), ended by their clients after 2 and 3 s.
    std::thread running([&] { curl_request(s.port(), "alice", 2); });
    json props = wait_props(s.port(), [](const json& p) { return p["queue"]["busy"] == true; });
    std::thread waiting([&] { curl_request(s.port(), "alice", 3); });
    props = wait_props(s.port(), [](const json& p) { return p["queue"]["waiting"] == 1; });
    EXPECT_EQ(props["queue"]["waiting"], 1) << props.dump();
    json third = long_request(4);
    third["user"] = "alice";
    const Reply refused = post_json(s.port(), "/v1/chat/completions", third);
    EXPECT_EQ(refused.status, 503) << refused.body;
    EXPECT_NE(refused.body.find("--queue-per-client"), std::string::npos) << refused.body;
    // Bob still gets in (his own share).
    json bob = chat_body("Hi", 2);
    bob["user"] = "bob";
    const Reply b = post_json(s.port(), "/v1/chat/completions", bob);
    EXPECT_EQ(b.status, 200) << b.body;
    running.join();
    waiting.join();
}

TEST_F(ServerFairness, AClientLeavingANonStreamedRequestStopsItsGeneration) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    const int kTokens = 8000, kClients = 3;
    const std::string body = long_request(kTokens).dump();
    for (int i = 0; i < kClients; ++i) {
        // curl gives up after a second and closes the connection; nothing was sent to it yet.
        const CommandResult r =
            run_command("curl -s -m 1 -H 'Content-Type: application/json' -d '" + body +
                        "' http://127.0.0.1:" + std::to_string(s.port()) + "/v1/chat/completions");
        EXPECT_NE(r.status, 0) << "the answer came within the second: " << r.output;
    }
    const json props = wait_props(s.port(), [](const json& p) { return p["queue"]["busy"] == false; });
    ASSERT_EQ(props["queue"]["busy"], false) << "the engine kept working after its clients left";
    EXPECT_EQ(props["stats"]["cancelled"], kClients) << props.dump();
    EXPECT_LT(props["stats"]["generated_tokens"].get<int64_t>(), int64_t{kClients} * kTokens);
    EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hi", 2)).status, 200);
}

}  // namespace
}  // namespace snapdoc::test
