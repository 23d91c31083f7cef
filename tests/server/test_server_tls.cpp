// snapdoc-server over HTTPS (--ssl-cert / --ssl-key, issue 40 item 2): the certificate and key
// are checked at start (a clear error and a non-zero exit, never a server that fails each
// handshake), the startup line and /props say https, a plain-HTTP client on the TLS port is told
// in plain HTTP to use https, and the transport guards (slow heads cut at the head deadline
// without holding a thread, header floods refused with 431) hold over TLS as over plain HTTP.
// The certificate is made at test time (self_signed_cert.h). Loopback only; every wait bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

#include "tests/server/raw_client.h"
#include "tests/server/self_signed_cert.h"
#include "tests/server/server_process.h"
#include "tests/server/tls_raw_client.h"

namespace snapdoc::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() {
    const fs::path d = fs::temp_directory_path() / ("snapdoc-tls-test-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The server with `flags` that must refuse to start: its exit status and what it printed.
CommandResult refused_start(const std::vector<std::string>& flags) {
    std::string cmd = "timeout 60 " + quote(SNAPDOC_SERVER_PATH) + " -m " + quote(demo_model_path().string()) +
                      " --port 0 --no-cache";
    for (const auto& f : flags) cmd += " " + quote(f);
    return run_command(cmd + " 2>&1");
}

class ServerTls : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
        dir_ = scratch_dir();
        cert_ = make_self_signed_cert(dir_, "server");
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }
    std::vector<std::string> args(std::vector<std::string> extra = {}) const {
        std::vector<std::string> a = {"-m",         demo_model_path().string(), "--no-cache",
                                      "--ssl-cert", cert_.cert.string(),        "--ssl-key",
                                      cert_.key.string()};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    fs::path dir_;
    CertFiles cert_;
};

TEST_F(ServerTls, BadCertificateOrKeyFilesStopTheServerWithAClearError) {
    const CertFiles other = make_self_signed_cert(dir_, "other");
    const fs::path garbage = dir_ / "garbage.pem", empty = dir_ / "empty.pem";
    std::ofstream(garbage) << "this is not a certificate\n";
    std::ofstream(empty) << "";
    struct Case {
        std::vector<std::string> flags;
        std::string words;
    };
    const std::vector<Case> cases = {
        {{"--ssl-cert", (dir_ / "missing.pem").string(), "--ssl-key", cert_.key.string()}, "no such file"},
        {{"--ssl-cert", garbage.string(), "--ssl-key", cert_.key.string()}, "not a PEM certificate"},
        {{"--ssl-cert", cert_.cert.string(), "--ssl-key", garbage.string()}, "not an unencrypted PEM private key"},
        {{"--ssl-cert", cert_.cert.string(), "--ssl-key", empty.string()}, "cannot be read"},
        {{"--ssl-cert", cert_.cert.string(), "--ssl-key", other.key.string()}, "is not the private key of the certificate"},
        {{"--ssl-cert", cert_.cert.string()}, "go together"},
    };
    for (const Case& c : cases) {
        const CommandResult r = refused_start(c.flags);
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_NE(r.output.find(c.words), std::string::npos) << c.words << "\n" << r.output;
        EXPECT_EQ(r.output.find("listening on"), std::string::npos) << r.output;
    }
}

TEST_F(ServerTls, ServesHttpsAndTellsAPlainHttpClientToUseIt) {
    ServerProcess s(args());
    ASSERT_TRUE(s.tls()) << "the startup line does not say https";
    EXPECT_EQ(s.url().rfind("https://127.0.0.1:", 0), 0u);
    const Reply props = https_request("GET", s.port(), "/props", "", {}, cert_.cert.string());
    ASSERT_EQ(props.status, 200) << props.body;
    EXPECT_EQ(props.json()["tls"], true);
    // Trusted through the certificate itself: the chat routes answer, streamed ones too.
    const Reply chat = https_request("POST", s.port(), "/v1/chat/completions", chat_body("Hello", 4).dump(), {},
                                     cert_.cert.string());
    ASSERT_EQ(chat.status, 200) << chat.body;
    EXPECT_TRUE(chat.json()["choices"].is_array());
    const Reply streamed = https_request("POST", s.port(), "/v1/chat/completions",
                                         chat_body("Hello", 4, /*stream=*/true).dump(), {}, cert_.cert.string());
    ASSERT_EQ(streamed.status, 200);
    EXPECT_NE(streamed.body.find("data: [DONE]"), std::string::npos) << streamed.body;
    // A certificate the client does not trust: the handshake fails, nothing is served.
    const CertFiles stranger = make_self_signed_cert(dir_, "stranger");
    std::string error;
    EXPECT_EQ(https_request("GET", s.port(), "/health", "", {}, stranger.cert.string(), &error).status, 0);
    EXPECT_NE(error.find("SSL"), std::string::npos) << error;
    // Plain HTTP on the TLS port: a plain 400 that says what to do, then the connection closes.
    const Reply plain = http_get(s.port(), "/health");
    EXPECT_EQ(plain.status, 400) << plain.body;
    EXPECT_NE(plain.body.find("https://"), std::string::npos) << plain.body;
    EXPECT_EQ(https_request("GET", s.port(), "/health", "").status, 200);  // and the server is fine
}

// TLS connections that completed their handshake and sent part of a head, then one more byte
// every `period_ms`, `rounds` times (as test_server_transport's Drip, encrypted).
class TlsDrip {
public:
    TlsDrip(int port, int count, int period_ms, int rounds) {
        for (int i = 0; i < count; ++i) {
            auto c = std::make_unique<TlsRawClient>();
            if (c->connect(port) && c->send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "))
                clients.push_back(std::move(c));
        }
        thread_ = std::thread([this, period_ms, rounds] {
            for (int r = 0; r < rounds && !stop_; ++r) {
                std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
                std::lock_guard lock(mu);
                for (auto& c : clients) (void)c->send("x");
            }
            running = false;
        });
    }
    ~TlsDrip() {
        stop_ = true;
        thread_.join();
    }
    std::vector<std::unique_ptr<TlsRawClient>> clients;
    std::atomic<bool> running{true};
    std::mutex mu;  // a client's sends and reads are not made from two threads at once

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST_F(ServerTls, SlowHeadsAndSlowHandshakesAreCutAtTheHeadDeadlineWithoutHoldingAThread) {
    // 5 request threads (max(--http-threads, --queue + 4)); eight TLS clients dripping their heads.
    ServerProcess s(args({"--http-threads", "4", "--queue", "1", "--head-timeout", "3"}));
    // A client that opens a TCP connection and sends one byte of a TLS hello, then nothing.
    const int half_hello = connect_loopback(s.port());
    ASSERT_GE(half_hello, 0);
    ASSERT_TRUE(send_text(half_hello, std::string(1, '\x16')));
    TlsDrip drip(s.port(), 8, 500, 30);
    ASSERT_EQ(drip.clients.size(), 8u);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(https_request("GET", s.port(), "/health", "").status, 200);
        EXPECT_EQ(https_request("POST", s.port(), "/tokenize", R"({"content":"hello"})").status, 200);
    }
    EXPECT_TRUE(drip.running.load()) << "the routes answered only after the slow clients stopped";
    // Each slow head gets 408 at its deadline, over TLS.
    int timed_out = 0;
    {
        std::lock_guard lock(drip.mu);
        for (auto& c : drip.clients) timed_out += reply_status(c->read_reply(15)) == 408;
    }
    EXPECT_EQ(timed_out, 8);
    // The half hello was closed (no HTTP reply can be sent before a handshake): end of stream.
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(read_reply(half_hello, 10), "");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8)) << "the half hello was not closed";
    close(half_hello);
}

TEST_F(ServerTls, HeaderFloodsAreRefusedWith431OverTls) {
    ServerProcess s(args());
    std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 200; ++i) head += "X-F" + std::to_string(i) + ": 1\r\n";
    TlsRawClient c;
    ASSERT_TRUE(c.connect(s.port()));
    ASSERT_TRUE(c.send(head + "\r\n"));
    const std::string reply = c.read_reply(10);
    EXPECT_EQ(reply_status(reply), 431) << reply;
    EXPECT_NE(reply.find("--max-headers"), std::string::npos) << reply;
    // Keep-alive over TLS: the connection goes back to the gate and serves the next request.
    TlsRawClient k;
    ASSERT_TRUE(k.connect(s.port()));
    const std::string one = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(k.send(one));
        EXPECT_EQ(reply_status(k.read_reply(10)), 200) << "request " << i;
    }
}

// Keep-alive requests, plain and over TLS, are answered without waiting for the client's delayed
// ACK (TCP_NODELAY: with Nagle's algorithm each one took 40 ms, a response being several writes).
TEST_F(ServerTls, KeepAliveAnswersAreNotHeldBackByNagle) {
    ServerProcess tls(args());
    ServerProcess plain({"-m", demo_model_path().string(), "--no-cache"});
    const std::string one = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    auto median_ms = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::vector<double> tls_ms, plain_ms;
    TlsRawClient k;
    ASSERT_TRUE(k.connect(tls.port()));
    const int fd = connect_loopback(plain.port());
    ASSERT_GE(fd, 0);
    for (int i = 0; i < 21; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        ASSERT_TRUE(k.send(one));
        ASSERT_EQ(reply_status(k.read_reply(10)), 200);
        tls_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        t0 = std::chrono::steady_clock::now();
        ASSERT_TRUE(send_text(fd, one));
        ASSERT_EQ(reply_status(read_reply(fd, 10)), 200);
        plain_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    close(fd);
    EXPECT_LT(median_ms(tls_ms), 20.0);
    EXPECT_LT(median_ms(plain_ms), 20.0);
}

}  // namespace
}  // namespace snapdoc::test
