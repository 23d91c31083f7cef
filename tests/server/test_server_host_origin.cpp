// What a browser page can make the server do (issue 39, item 6). Without a key, a request whose
// `Host:` is a name the server was not told about is refused (the precondition of DNS rebinding:
// a page at evil.example whose name later resolves to 127.0.0.1); IP literals and localhost are
// always this machine's. A request with an `Origin:` other than the server's own is refused unless
// --cors allows it: text/plain and form bodies need no preflight, so without this any page could
// create documents on a local server.
#include <gtest/gtest.h>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

void expect_refused(const Reply& r, int status) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_TRUE(r.json().contains("error")) << r.body;
}

Reply text_plain_upload(int port, const std::map<std::string, std::string>& headers) {
    auto h = headers;
    h["Content-Type"] = "text/plain";
    return http_post(port, "/v1/documents", json{{"text", "The vault code is 4711."}}.dump(), h);
}

class ServerHostOrigin : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
    static std::vector<std::string> args(std::vector<std::string> more = {}) {
        std::vector<std::string> a = {"-m", demo_model_path().string(), "--no-cache", "--log-level", "warn"};
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }
};

TEST_F(ServerHostOrigin, WithoutAKeyOnlyThisMachinesNamesAndAllowedHostsAreServed) {
    ServerProcess s(args({"--allow-host", "snapdoc.lan"}));
    const std::string port = std::to_string(s.port());
    expect_refused(http_get(s.port(), "/v1/models", {{"Host", "evil.example:" + port}}), 403);
    expect_refused(http_get(s.port(), "/health", {{"Host", "evil.example"}}), 403);
    for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port,
                                                             "[::1]:" + port, "LocalHost", "snapdoc.lan:" + port,
                                                             "192.168.1.20:" + port})
        EXPECT_EQ(http_get(s.port(), "/v1/models", {{"Host", host}}).status, 200) << host;
}

TEST_F(ServerHostOrigin, WithAKeyAnyHostIsServedToAKeyHolder) {
    ServerProcess s(args({"--api-key", "k"}));
    EXPECT_EQ(http_get(s.port(), "/v1/models", {{"Host", "snapdoc.example"}, {"Authorization", "Bearer k"}}).status,
              200);
}

TEST_F(ServerHostOrigin, ACrossOriginUploadIsRefusedAndCreatesNothing) {
    ServerProcess s(args());
    const std::string own = "http://127.0.0.1:" + std::to_string(s.port());
    expect_refused(text_plain_upload(s.port(), {{"Origin", "http://evil.example"}}), 403);
    expect_refused(text_plain_upload(s.port(), {{"Origin", "null"}}), 403);
    EXPECT_TRUE(http_get(s.port(), "/v1/documents").json()["data"].empty());
    // The server's own pages and clients that send no Origin are served.
    EXPECT_EQ(text_plain_upload(s.port(), {{"Origin", own}}).status, 202);
    EXPECT_EQ(http_get(s.port(), "/v1/models", {{"Origin", own}}).status, 200);
}

TEST_F(ServerHostOrigin, CorsAllowsItsOriginAndStarAllowsAny) {
    {
        ServerProcess s(args({"--cors", "http://app.example"}));
        EXPECT_EQ(text_plain_upload(s.port(), {{"Origin", "http://app.example"}}).status, 202);
        expect_refused(text_plain_upload(s.port(), {{"Origin", "http://evil.example"}}), 403);
    }
    ServerProcess s(args({"--cors", "*"}));
    EXPECT_EQ(text_plain_upload(s.port(), {{"Origin", "http://anything.example"}}).status, 202);
}

// --host on an address other hosts can reach, without a key, refuses to start and says what to do
// (keys, or --allow-no-key behind an authenticating proxy, which then warns).
TEST(ServerExposure, ANonLoopbackHostWithoutAKeyRefusesToStartUnlessAllowNoKey) {
    // 192.0.2.1 (TEST-NET) is no address of this machine: past the flags, the bind fails anyway.
    const std::string server = std::string(SNAPDOC_SERVER_PATH) + " -m " + demo_model_path().string() +
                               " --port 0 --host 192.0.2.1";
    const CommandResult open = run_command("timeout 20 " + server + " 2>&1");
    EXPECT_EQ(open.status, 2) << open.output;
    EXPECT_NE(open.output.find("--api-key"), std::string::npos) << open.output;
    EXPECT_NE(open.output.find("--allow-no-key"), std::string::npos) << open.output;
    EXPECT_EQ(open.output.find("cannot listen"), std::string::npos) << "refused only at the bind: " << open.output;
    const CommandResult allowed = run_command("timeout 20 " + server + " --allow-no-key 2>&1");
    EXPECT_NE(allowed.output.find("warning"), std::string::npos) << allowed.output;
    EXPECT_NE(allowed.output.find("cannot listen"), std::string::npos) << allowed.output;
    const CommandResult keyed = run_command("timeout 20 " + server + " --api-key k 2>&1");
    EXPECT_EQ(keyed.output.find("warning"), std::string::npos) << keyed.output;
    EXPECT_NE(keyed.output.find("cannot listen"), std::string::npos) << keyed.output;
}

}  // namespace
}  // namespace snapdoc::test
