// The server against a hostile client at the transport level (issue 39): Range floods, clients
// that send their head one byte at a time, header floods, too many connections from one address,
// a burst of connections while the server is not accepting, JSON sent as a form (curl -d), a file
// size limit, and SIGTERM while a slow client holds a connection. Loopback only; every loop is
// bounded in count, every wait in time.
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fcntl.h>
#include <thread>

#include "tests/server/raw_client.h"
#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

std::vector<std::string> args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"-m", demo_model_path().string(), "--no-cache"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

class ServerTransport : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

// Connections that sent part of a head and then one more byte every `period_ms`, `rounds` times.
class Drip {
public:
    Drip(int port, int count, int period_ms, int rounds) {
        for (int i = 0; i < count; ++i) {
            const int fd = connect_loopback(port);
            if (fd >= 0 && send_text(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")) fds.push_back(fd);
        }
        thread_ = std::thread([this, period_ms, rounds] {
            for (int r = 0; r < rounds && !stop_; ++r) {
                std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
                for (int fd : fds) (void)send(fd, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            }
            running = false;
        });
    }
    ~Drip() {
        stop_ = true;
        thread_.join();
        for (int fd : fds) close(fd);
    }
    std::vector<int> fds;
    std::atomic<bool> running{true};

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST_F(ServerTransport, RangeHeadersAreIgnoredOnEveryRoute) {
    ServerProcess s(args());
    std::string text;
    for (int i = 0; i < 3000; ++i) text += "word" + std::to_string(i) + " ";
    const std::string body = json{{"content", text}}.dump();
    std::string ranges = "bytes=0-0";
    for (int i = 1; i < 300; ++i) ranges.append(",").append(std::to_string(i)).append("-").append(std::to_string(i));

    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(60, 0);
    const auto plain = c.Post("/tokenize", body, "application/json");
    ASSERT_TRUE(plain);
    const auto ranged = c.Post("/tokenize", {{"Range", ranges}}, body, "application/json");
    ASSERT_TRUE(ranged);
    EXPECT_EQ(ranged->status, 200);
    EXPECT_EQ(ranged->body, plain->body) << "a Range header changed the answer";
    const auto health = c.Get("/health", {{"Range", "bytes=0-1"}});
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_EQ(json::parse(health->body)["status"], "ok");
}

TEST_F(ServerTransport, SlowHeadsHoldNoThreadAndAreCutAtTheHeadDeadline) {
    // 5 request threads (max(--http-threads, --queue + 4)); twelve clients dripping their heads.
    ServerProcess s(args({"--http-threads", "4", "--queue", "1", "--head-timeout", "3"}));
    Drip drip(s.port(), 12, 500, 40);
    ASSERT_EQ(drip.fds.size(), 12u);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // every slow head has started
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(http_get(s.port(), "/health").status, 200);
        EXPECT_EQ(post_json(s.port(), "/tokenize", {{"content", "hello"}}).status, 200);
    }
    EXPECT_TRUE(drip.running.load()) << "the routes answered only after the slow clients stopped";
    // Each slow head is cut at its deadline with 408, however steadily its bytes come.
    int timed_out = 0;
    for (int fd : drip.fds) timed_out += reply_status(read_reply(fd, 15)) == 408;
    EXPECT_EQ(timed_out, 12);
}

TEST_F(ServerTransport, SigtermEndsWhileASlowClientHoldsAConnection) {
    ServerProcess s(args());
    Drip drip(s.port(), 2, 1000, 60);
    ASSERT_EQ(drip.fds.size(), 2u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(kill(s.pid(), SIGTERM), 0);
    EXPECT_EQ(s.wait_exit(10), 0) << "still running 10 s after SIGTERM: " << s.stderr_text();
}

TEST_F(ServerTransport, HeaderFloodsAreRefusedWith431AndCostNoMemory) {
    ServerProcess s(args());
    {  // more lines than --max-headers (100), in one segment
        std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (int i = 0; i < 200; ++i) head += "X-F" + std::to_string(i) + ": 1\r\n";
        const int fd = connect_loopback(s.port());
        ASSERT_TRUE(send_text(fd, head + "\r\n"));
        const std::string reply = read_reply(fd, 10);
        EXPECT_EQ(reply_status(reply), 431) << reply;
        EXPECT_NE(reply.find("--max-headers"), std::string::npos) << reply;
        close(fd);
    }
    {  // lines under httplib's own per-line cap, but a head larger than --max-header-kb (64)
        std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (int i = 0; i < 20; ++i) head += "X-Big" + std::to_string(i) + ": " + std::string(4000, 'b') + "\r\n";
        const int fd = connect_loopback(s.port());
        ASSERT_TRUE(send_text(fd, head + "\r\n"));
        EXPECT_EQ(reply_status(read_reply(fd, 10)), 431);
        close(fd);
    }
    {  // a million header lines: the server stops reading at its limit
        const int64_t before = s.peak_rss_bytes();
        const int fd = connect_loopback(s.port());
        ASSERT_TRUE(send_text(fd, "GET /health HTTP/1.1\r\n"));
        std::string chunk;
        for (int i = 0; i < 10000; ++i) chunk += "X-Flood: 1\r\n";
        timeval tv{2, 0};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        int sent = 0;
        while (sent < 100 && send_text(fd, chunk)) ++sent;
        close(fd);
        EXPECT_LT(sent, 100) << "the server read a million header lines";
        EXPECT_LT(s.peak_rss_bytes() - before, int64_t{32} << 20);
    }
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);
}

TEST_F(ServerTransport, ConnectionsPerAddressAreCappedAndOtherAddressesStillServed) {
    ServerProcess s(args({"--max-connections-per-address", "4"}));
    std::vector<int> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(connect_loopback(s.port(), "127.0.0.2"));
        ASSERT_GE(idle.back(), 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all four accepted
    const int fifth = connect_loopback(s.port(), "127.0.0.2");
    ASSERT_GE(fifth, 0);
    const std::string reply = read_reply(fifth, 10);
    EXPECT_EQ(reply_status(reply), 503) << reply;
    EXPECT_NE(reply.find("too_many_connections"), std::string::npos) << reply;
    close(fifth);
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);  // from 127.0.0.1
    for (int fd : idle) close(fd);
}

TEST_F(ServerTransport, TheListenBacklogHoldsABurstWhileTheServerIsNotAccepting) {
    ServerProcess s(args());
    // Stopped, the server accepts nothing: only the kernel's accept queue (the backlog) takes the
    // burst. httplib's own backlog of 5 completed 6 of these handshakes.
    ASSERT_EQ(kill(s.pid(), SIGSTOP), 0);
    std::vector<int> fds;
    for (int i = 0; i < 64; ++i) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_in from{};  // another address than the /health check's, whose share this burst takes
        from.sin_family = AF_INET;
        from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 2);
        (void)bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(s.port()));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        (void)connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        fds.push_back(fd);
    }
    int connected = 0;
    for (int fd : fds) {
        pollfd p{fd, POLLOUT, 0};
        int err = 0;
        socklen_t n = sizeof err;
        if (poll(&p, 1, 500) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &n) == 0 && err == 0) ++connected;
    }
    kill(s.pid(), SIGCONT);
    for (int fd : fds) close(fd);
    EXPECT_EQ(connected, 64);
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);
}

TEST_F(ServerTransport, JsonSentAsAFormIsReadAsJson) {
    ServerProcess s(args());
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "word ";  // 10 KB: over httplib's 8 KiB form cap
    httplib::Client c("127.0.0.1", s.port());
    const auto r = c.Post("/tokenize", json{{"content", text}}.dump(), "application/x-www-form-urlencoded");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_GE(json::parse(r->body)["tokens"].size(), 1000u);
}

TEST_F(ServerTransport, AFileSizeLimitFailsALogWriteNotTheServer) {
    // The server's stderr goes to a file here, and it logs every prompt: past a 1 KiB file size
    // limit each log line would raise SIGXFSZ, whose default action ends the process.
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit small = old;
    small.rlim_cur = 1024;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    std::unique_ptr<ServerProcess> s;
    try {
        s = std::make_unique<ServerProcess>(args({"--log-level", "debug"}));
    } catch (...) {
        setrlimit(RLIMIT_FSIZE, &old);
        throw;
    }
    setrlimit(RLIMIT_FSIZE, &old);
    int answered = 0;
    for (int i = 0; i < 20; ++i) answered += post_json(s->port(), "/v1/chat/completions", chat_body("Hi", 4)).status == 200;
    EXPECT_EQ(answered, 20);
    EXPECT_EQ(http_get(s->port(), "/health").status, 200);
}

}  // namespace
}  // namespace snapdoc::test
