// Documents belong to the API key that uploaded them (issue 39, item 4): another key's documents are
// not listed, and their ids answer 404 (not 403, which would confirm they exist) to GET, DELETE and
// chat, and their K/V cache files are not found by another key. Keys come from repeated --api-key flags or an --api-keys-file, which must not be
// world-readable.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "tests/server/server_process.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
using snapdoc::testing::TempDir;

std::map<std::string, std::string> bearer(const std::string& key) {
    return {{"Authorization", "Bearer " + key}};
}

int delete_status(int port, const std::string& path, const std::string& key) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(30, 0);
    auto r = c.Delete(path, {{"Authorization", "Bearer " + key}});
    return r ? r->status : 0;
}

std::string upload(int port, const std::string& key, const std::string& text) {
    const Reply r = http_post(port, "/v1/documents", json{{"text", text}}.dump(), bearer(key));
    EXPECT_EQ(r.status, 202) << r.body;
    return r.json().value("id", "");
}

// What another key sees of `id`, which `owner` uploaded.
void expect_invisible(int port, const std::string& id, const std::string& other) {
    EXPECT_TRUE(http_get(port, "/v1/documents", bearer(other)).json()["data"].empty());
    EXPECT_EQ(http_get(port, "/v1/documents/" + id, bearer(other)).status, 404);
    json chat = chat_body("What is the code?", 2);
    chat["document_id"] = id;
    EXPECT_EQ(http_post(port, "/v1/chat/completions", chat.dump(), bearer(other)).status, 404);
    EXPECT_EQ(delete_status(port, "/v1/documents/" + id, other), 404);
}

class ServerOwners : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

TEST_F(ServerOwners, AnotherKeysDocumentsAreNotListedAndTheirIdsAre404) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--api-key", "key-alice", "--api-key",
                     "key-bob"});
    const std::string id = upload(s.port(), "key-alice", "The vault code is 4711.");
    ASSERT_FALSE(id.empty());
    expect_invisible(s.port(), id, "key-bob");
    // The owner still has it: bob's DELETE did not remove it.
    EXPECT_EQ(http_get(s.port(), "/v1/documents/" + id, bearer("key-alice")).status, 200);
    EXPECT_EQ(http_get(s.port(), "/v1/documents", bearer("key-alice")).json()["data"].size(), 1u);
    EXPECT_EQ(delete_status(s.port(), "/v1/documents/" + id, "key-alice"), 200);
}

TEST_F(ServerOwners, AKeysFileGivesEachLineItsOwnKey) {
    TempDir dir("server-keys");
    const auto file = dir.path() / "keys";
    std::ofstream(file) << "# one key per line\n\nkey-alice\n  key-bob  \n";
    ::chmod(file.c_str(), 0600);
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--api-keys-file", file.string()});
    EXPECT_EQ(http_get(s.port(), "/v1/models", bearer("# one key per line")).status, 401);
    const std::string id = upload(s.port(), "key-alice", "The vault code is 4711.");
    ASSERT_FALSE(id.empty());
    expect_invisible(s.port(), id, "key-bob");
}

TEST_F(ServerOwners, AWorldReadableKeysFileIsRefused) {
    TempDir dir("server-keys-open");
    const auto file = dir.path() / "keys";
    std::ofstream(file) << "key-alice\n";
    ::chmod(file.c_str(), 0644);
    // `timeout`: a server that accepted the file would serve until killed.
    const CommandResult r = run_command("timeout 20 " + std::string(SNAPDOC_SERVER_PATH) + " -m " +
                                        demo_model_path().string() + " --port 0 --api-keys-file " +
                                        file.string() + " 2>&1");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("chmod"), std::string::npos) << r.output;
}

json wait_ready(int port, const std::string& key, const std::string& id) {
    json doc;
    for (int i = 0; i < 600; ++i) {  // at most 60 s
        doc = http_get(port, "/v1/documents/" + id, bearer(key)).json();
        if (doc["status"] == "ready" || doc["status"] == "failed") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return doc;
}

TEST_F(ServerOwners, AnotherKeysUploadOfTheSameTextDoesNotComeFromTheFirstKeysKvCacheFile) {
    TempDir dir("server-keys-kv");
    const std::string text = read_text(repo_path("resources/samples/demo-report.txt"));
    ServerProcess s({"-m", demo_model_path().string(), "--cache-dir", (dir.path() / "kv").string(), "--api-key",
                     "key-alice", "--api-key", "key-bob"});
    const json a = wait_ready(s.port(), "key-alice", upload(s.port(), "key-alice", text));
    ASSERT_EQ(a["status"], "ready") << a.dump();
    EXPECT_FALSE(a["from_kv_cache"].get<bool>());
    const json b = wait_ready(s.port(), "key-bob", upload(s.port(), "key-bob", text));
    ASSERT_EQ(b["status"], "ready") << b.dump();
    EXPECT_FALSE(b["from_kv_cache"].get<bool>()) << "bob's upload was served from alice's K/V cache file";
    // alice's own second copy (after deleting the first) does come from her file.
    EXPECT_EQ(delete_status(s.port(), "/v1/documents/" + a["id"].get<std::string>(), "key-alice"), 200);
    const json a2 = wait_ready(s.port(), "key-alice", upload(s.port(), "key-alice", text));
    EXPECT_TRUE(a2["from_kv_cache"].get<bool>()) << a2.dump();
}

}  // namespace
}  // namespace snapdoc::test
