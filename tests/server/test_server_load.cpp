// snapdoc-server under load and misbehaving clients: 8 clients x 20 requests mixing short prompts
// and a long document (every answer equals the same request's answer alone: nothing mixed), peak
// RSS bounded; 50 clients that leave mid-stream (their generations stop); slow-loris connections
// that do not block others; SIGTERM drains the stream in flight.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "tests/server/raw_client.h"
#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

class ServerLoad : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

std::string content(const Reply& r) {
    const json j = r.json();
    if (!j.contains("choices")) return "<error " + std::to_string(r.status) + ": " + r.body + ">";
    return j["choices"][0]["message"]["content"].get<std::string>();
}

// Waits (bounded) until the engine has nothing queued or running.
json wait_idle(int port) {
    json props;
    for (int i = 0; i < 600; ++i) {
        props = http_get(port, "/props").json();
        if (props["queue"]["busy"] == false) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return props;
}

TEST_F(ServerLoad, EightClientsTimesTwentyRequestsAreAnsweredUnmixed) {
    ServerProcess s(
        {"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens", "1024", "--queue", "16"});
    std::string doc = read_text(repo_path("resources/samples/demo-report.txt"));
    std::vector<json> prompts;
    const char* short_facts[] = {
        "The gate code for the red barn is 1188.", "The locker number for the old pier is 5521.",
        "The permit number for the west mill is 9034.", "The ticket number for the blue tram is 2760."};
    const char* short_questions[] = {
        "What is the gate code for the red barn?", "What is the locker number for the old pier?",
        "What is the permit number for the west mill?", "What is the ticket number for the blue tram?"};
    for (int i = 0; i < 4; ++i)
        prompts.push_back(chat_body(std::string(short_facts[i]) + "\n\nQuestion: " + short_questions[i], 12));
    for (const char* q : {"What is the batch number for the green office?",
                          "What is the serial number for the new office?"}) {
        json b = chat_body(doc + "\n\nQuestion: " + q, 12);
        b["snapkv"] = {{"budget", 128}};
        prompts.push_back(b);
    }
    // Each prompt alone first (after one warm-up pass, so the long document is held as in the load).
    std::vector<std::string> expected;
    for (const json& p : prompts) post_json(s.port(), "/v1/chat/completions", p);
    for (const json& p : prompts) expected.push_back(content(post_json(s.port(), "/v1/chat/completions", p)));
    for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(expected[i].rfind("<error", 0), std::string::npos) << expected[i];

    std::atomic<int> answered{0}, mismatched{0}, busy{0};
    std::vector<std::string> failures(8);
    std::vector<std::thread> clients;
    for (int c = 0; c < 8; ++c)
        clients.emplace_back([&, c] {
            for (int i = 0; i < 20; ++i) {
                const std::size_t k = static_cast<std::size_t>(c * 7 + i * 3) % prompts.size();
                Reply r = post_json(s.port(), "/v1/chat/completions", prompts[k]);
                for (int retry = 0; r.status == 503 && retry < 200;
                     ++retry) {  // the queue is full: try again
                    ++busy;
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    r = post_json(s.port(), "/v1/chat/completions", prompts[k]);
                }
                const std::string got = content(r);
                if (got == expected[k]) {
                    ++answered;
                } else {
                    ++mismatched;
                    failures[c] =
                        "prompt " + std::to_string(k) + ": expected '" + expected[k] + "', got '" + got + "'";
                }
            }
        });
    for (auto& t : clients) t.join();
    EXPECT_EQ(answered.load(), 160);
    for (const auto& f : failures) EXPECT_TRUE(f.empty()) << f;
    const int64_t rss = s.peak_rss_bytes();
    std::printf("8 clients x 20 requests: %d answered, %d retries after 503, peak RSS %lld MiB\n",
                answered.load(), busy.load(), static_cast<long long>(rss >> 20));
    EXPECT_GT(rss, 0);
    EXPECT_LT(rss, int64_t{1} << 30) << "peak RSS above 1 GiB for a 17 MB model and a 2K-token document";
}

TEST_F(ServerLoad, FiftyClientsLeavingMidStreamStopTheirGenerations) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    json b = chat_body("The alarm code for the south office is 3013.\n\nQuestion: What is the alarm code?",
                       400, true);
    b["ignore_eos"] = true;
    const std::string body = b.dump();
    for (int i = 0; i < 50; ++i) {
        httplib::Client c("127.0.0.1", s.port());
        c.set_read_timeout(30, 0);
        int chunks = 0;
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/chat/completions";
        req.body = body;
        req.set_header("Content-Type", "application/json");
        req.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) {
            return ++chunks < 2;  // read the first token, then hang up
        };
        c.send(req);
        c.stop();
    }
    const json props = wait_idle(s.port());
    ASSERT_EQ(props["queue"]["busy"], false) << "the engine kept working after its clients left";
    const int64_t tokens = props["stats"]["generated_tokens"];
    const int64_t cancelled = props["stats"]["cancelled"];
    std::printf("50 disconnects: %lld cancelled, %lld tokens generated in all (400 each if none stopped)\n",
                static_cast<long long>(cancelled), static_cast<long long>(tokens));
    EXPECT_GE(cancelled, 45);
    EXPECT_LT(tokens, 50 * 40) << "generations went on long after their clients left";
    EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hi", 2)).status, 200);
}

TEST_F(ServerLoad, SlowLorisClientsDoNotBlockOthersAndTimeOut) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--head-timeout", "2"});
    std::vector<int> slow;
    for (int i = 0; i < 8; ++i) {
        const int fd = connect_loopback(s.port());
        ASSERT_GE(fd, 0);
        const std::string start = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le";
        ASSERT_EQ(send(fd, start.data(), start.size(), MSG_NOSIGNAL), static_cast<ssize_t>(start.size()));
        slow.push_back(fd);
    }
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hi", 2)).status, 200);
    // Stuck half-way through their headers, they are closed at the head deadline (bounded wait).
    int closed = 0;
    for (int fd : slow) {
        timeval tv{8, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char buf[512];
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n >= 0) ++closed;  // EOF or an error response: the server let go
        close(fd);
    }
    EXPECT_EQ(closed, 8);
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);
}

TEST_F(ServerLoad, SigtermFinishesTheStreamInFlight) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    json b = chat_body("The alarm code is 3013.\n\nQuestion: What is the alarm code?", 48, true);
    b["ignore_eos"] = true;
    std::string stream;
    std::atomic<bool> first{false};
    std::thread client([&] {
        httplib::Client c("127.0.0.1", s.port());
        c.set_read_timeout(60, 0);
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/chat/completions";
        req.body = b.dump();
        req.set_header("Content-Type", "application/json");
        req.content_receiver = [&](const char* d, size_t n, uint64_t, uint64_t) {
            stream.append(d, n);
            if (stream.find("\"content\"") != std::string::npos) first = true;
            return true;
        };
        c.send(req);
    });
    for (int i = 0; i < 600 && !first; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(first.load());
    kill(s.pid(), SIGTERM);
    client.join();
    EXPECT_NE(stream.find("\"finish_reason\":\"length\""), std::string::npos) << stream;
    EXPECT_NE(stream.find("data: [DONE]"), std::string::npos);
    EXPECT_EQ(s.wait_exit(20), 0) << s.stderr_text();
}

}  // namespace
}  // namespace snapdoc::test
