// The document registry is bounded per owner (issue 39, item 13): an identical upload returns the
// id it already has instead of a second copy, and an owner at --max-documents gets 429
// (too_many_documents) until it deletes one; another key's count is its own.
#include <gtest/gtest.h>
#include <httplib.h>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

Reply upload(int port, const std::string& key, const std::string& text) {
    return http_post(port, "/v1/documents", json{{"text", text}}.dump(), {{"Authorization", "Bearer " + key}});
}

class ServerDocumentCap : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

TEST_F(ServerDocumentCap, IdenticalUploadsShareAnIdAndTheCapIsPerOwner) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--max-documents", "2", "--api-key", "ka",
                     "--api-key", "kb"});
    const Reply a1 = upload(s.port(), "ka", "The vault code is 4711.");
    ASSERT_EQ(a1.status, 202) << a1.body;
    const Reply again = upload(s.port(), "ka", "The vault code is 4711.");
    ASSERT_LT(again.status, 300) << again.body;
    EXPECT_EQ(again.json()["id"], a1.json()["id"]);
    ASSERT_EQ(upload(s.port(), "ka", "The gate code is 1234.").status, 202);

    const Reply over = upload(s.port(), "ka", "The door code is 9999.");
    EXPECT_EQ(over.status, 429) << over.body;
    EXPECT_EQ(over.json()["error"]["code"], "too_many_documents") << over.body;
    EXPECT_EQ(http_get(s.port(), "/v1/documents", {{"Authorization", "Bearer ka"}}).json()["data"].size(), 2u);

    // Another owner has its own count.
    EXPECT_EQ(upload(s.port(), "kb", "The door code is 9999.").status, 202);

    // Deleting one makes room.
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(30, 0);
    auto del = c.Delete("/v1/documents/" + a1.json()["id"].get<std::string>(), {{"Authorization", "Bearer ka"}});
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 200);
    EXPECT_EQ(upload(s.port(), "ka", "The door code is 9999.").status, 202);
}

}  // namespace
}  // namespace snapdoc::test
