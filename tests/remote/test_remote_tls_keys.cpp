// snapdoc-cli ask --remote against the real snapdoc-server over HTTPS with two API keys (issue 40,
// items 2 and 3): a self-signed certificate made at test time is trusted with --ca-cert (the
// answer comes with citations), refused without it in words, accepted with --insecure; and a
// second key cannot reach the first key's document session, neither through `ask --remote`
// (it gets a session of its own) nor through raw HTTPS requests naming the first key's id (404).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/remote/cli_run.h"
#include "tests/server/self_signed_cert.h"
#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::map<std::string, std::string> bearer(const std::string& key) {
    return {{"Authorization", "Bearer " + key}};
}

class RemoteTlsServer : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
        dir_ = temp_path("tls");
        fs::create_directories(dir_);
        cert_ = make_self_signed_cert(dir_, "server");
        server_ = std::make_unique<ServerProcess>(std::vector<std::string>{
            "-m", demo_model_path().string(), "--no-cache", "--ssl-cert", cert_.cert.string(), "--ssl-key",
            cert_.key.string(), "--api-key", "key-alice", "--api-key", "key-bob"});
        doc_ = write_file("tls-report.txt", demo_report() + "\n");
    }
    void TearDown() override {
        server_.reset();
        std::error_code ec;
        fs::remove_all(dir_, ec);
        fs::remove(doc_, ec);
    }
    // ask --remote with `key` and `trust` (--ca-cert FILE, --insecure, or nothing); --json to `json_out`.
    CliRun ask(const std::string& key, const std::vector<std::string>& trust, const fs::path& json_out) {
        std::vector<std::string> a = {"ask", "--remote", server_->url(), "--api-key", key, "--doc", doc_.string(),
                                      "-q", "What was the total revenue?", "-n", "8", "--json", json_out.string()};
        a.insert(a.end(), trust.begin(), trust.end());
        return cli(a);
    }
    fs::path dir_, doc_;
    CertFiles cert_;
    std::unique_ptr<ServerProcess> server_;
};

TEST_F(RemoteTlsServer, AskOverHttpsTrustsTheCaCertRefusesWithoutItAndAcceptsInsecure) {
    ASSERT_EQ(server_->url().rfind("https://", 0), 0u);
    const fs::path json_out = dir_ / "answer.json";
    const CliRun trusted = ask("key-alice", {"--ca-cert", cert_.cert.string()}, json_out);
    ASSERT_EQ(trusted.status, 0) << trusted.err;
    EXPECT_NE(trusted.err.find("remote: snapdoc-server at " + server_->url()), std::string::npos) << trusted.err;
    EXPECT_NE(trusted.out.find("  [1] tokens "), std::string::npos) << trusted.out;
    const json j = json::parse(read_text(json_out));
    ASSERT_EQ(j["answers"].size(), 1u);
    EXPECT_FALSE(j["answers"][0]["answer"].get<std::string>().empty());
    EXPECT_FALSE(j["answers"][0]["citations"].empty());

    const CliRun untrusted = ask("key-alice", {}, dir_ / "untrusted.json");
    EXPECT_EQ(untrusted.status, 1) << untrusted.out;
    EXPECT_NE(untrusted.err.find("TLS certificate is not trusted"), std::string::npos) << untrusted.err;
    EXPECT_NE(untrusted.err.find("--ca-cert FILE"), std::string::npos) << untrusted.err;

    const CliRun insecure = ask("key-alice", {"--insecure"}, dir_ / "insecure.json");
    EXPECT_EQ(insecure.status, 0) << insecure.err;
    EXPECT_NE(insecure.out.find("  [1] tokens "), std::string::npos) << insecure.out;

    // Plain HTTP to the HTTPS port: the server's plain 400, in its words.
    const CliRun plain = cli({"ask", "--remote", "http://127.0.0.1:" + std::to_string(server_->port()), "--api-key",
                              "key-alice", "--doc", doc_.string(), "-q", "Q?"});
    EXPECT_EQ(plain.status, 1) << plain.out;
    EXPECT_NE(plain.err.find("use an https:// URL"), std::string::npos) << plain.err;

    const CliRun wrong_key = ask("key-mallory", {"--ca-cert", cert_.cert.string()}, dir_ / "wrong.json");
    EXPECT_EQ(wrong_key.status, 1);
    EXPECT_NE(wrong_key.err.find("HTTP 401"), std::string::npos) << wrong_key.err;
}

TEST_F(RemoteTlsServer, ASecondKeyCannotReadTheFirstKeysSession) {
    const std::string ca = cert_.cert.string();
    const fs::path alice_json = dir_ / "alice.json", bob_json = dir_ / "bob.json";
    const CliRun alice = ask("key-alice", {"--ca-cert", ca}, alice_json);
    ASSERT_EQ(alice.status, 0) << alice.err;
    const std::string alice_id = json::parse(read_text(alice_json))["remote"]["document_id"];
    ASSERT_FALSE(alice_id.empty());

    // Through the CLI: the same document from another key is a session of its own.
    const CliRun bob = ask("key-bob", {"--ca-cert", ca}, bob_json);
    ASSERT_EQ(bob.status, 0) << bob.err;
    const std::string bob_id = json::parse(read_text(bob_json))["remote"]["document_id"];
    EXPECT_NE(bob_id, alice_id);

    // Through raw HTTPS: bob's list holds only his; alice's id is a 404 to every route.
    const int port = server_->port();
    const Reply bob_list = https_request("GET", port, "/v1/documents", "", bearer("key-bob"), ca);
    ASSERT_EQ(bob_list.status, 200) << bob_list.body;
    ASSERT_EQ(bob_list.json()["data"].size(), 1u);
    EXPECT_EQ(bob_list.json()["data"][0]["id"], bob_id);
    EXPECT_EQ(https_request("GET", port, "/v1/documents/" + alice_id, "", bearer("key-bob"), ca).status, 404);
    json chat = chat_body("What was the total revenue?", 2);
    chat["document_id"] = alice_id;
    const Reply stolen = https_request("POST", port, "/v1/chat/completions", chat.dump(), bearer("key-bob"), ca);
    EXPECT_EQ(stolen.status, 404) << stolen.body;
    EXPECT_EQ(stolen.body.find("revenue"), std::string::npos) << stolen.body;
    EXPECT_EQ(https_request("DELETE", port, "/v1/documents/" + alice_id, "", bearer("key-bob"), ca).status, 404);
    // Alice still has hers, and asks on it.
    EXPECT_EQ(https_request("GET", port, "/v1/documents/" + alice_id, "", bearer("key-alice"), ca).status, 200);
    EXPECT_EQ(https_request("POST", port, "/v1/chat/completions", chat.dump(), bearer("key-alice"), ca).status, 200);
}

TEST(RemoteTlsExpired, AnExpiredCertificateStartsWithAWarningAndTheClientRefusesItInWords) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    const fs::path dir = temp_path("tls-expired");
    fs::create_directories(dir);
    const CertFiles old = make_self_signed_cert(dir, "expired", /*valid_from_days=*/-10, /*valid_days=*/2);
    {
        ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--ssl-cert", old.cert.string(), "--ssl-key",
                         old.key.string(), "--api-key", "k"});
        EXPECT_NE(s.stderr_text().find("has expired"), std::string::npos) << s.stderr_text();
        const fs::path doc = write_file("expired.txt", "Short document.");
        const CliRun r = cli({"ask", "--remote", s.url(), "--api-key", "k", "--ca-cert", old.cert.string(), "--doc",
                              doc.string(), "-q", "Q?", "-n", "4"});
        EXPECT_EQ(r.status, 1) << r.out;
        EXPECT_NE(r.err.find("expired"), std::string::npos) << r.err;
        fs::remove(doc);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
}

TEST(RemoteServerHost, ANetworkHostWithoutAKeyRefusesToStartUnlessAllowNoKey) {
    const std::string server = SNAPDOC_SERVER_PATH;
    const std::string base = "timeout 60 " + quote(server) + " -m " + quote(demo_model_path().string()) +
                             " --no-cache --port 0 --host 0.0.0.0";
    const CommandResult refused = run_command(base + " 2>&1");
    EXPECT_EQ(refused.status, 2) << refused.output;
    EXPECT_NE(refused.output.find("--allow-no-key"), std::string::npos) << refused.output;
    EXPECT_EQ(refused.output.find("listening on"), std::string::npos) << refused.output;
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; the allowed start is not tried";
    // With --allow-no-key it starts (with a warning), as it does with a key.
    ServerProcess allowed({"-m", demo_model_path().string(), "--no-cache", "--host", "0.0.0.0", "--allow-no-key"});
    EXPECT_NE(allowed.stderr_text().find("--allow-no-key"), std::string::npos) << allowed.stderr_text();
    ServerProcess keyed({"-m", demo_model_path().string(), "--no-cache", "--host", "0.0.0.0", "--api-key", "k"});
    EXPECT_GT(keyed.port(), 0);
}

}  // namespace
}  // namespace snapdoc::test
