// Issue 41, item 5: a chat over several uploaded documents ("document_ids", in order). A fact on
// page 3 of the second, a PDF, is cited with that document's name, id and page 3; adding a third
// document builds on the held session of the first two (session "partial", their tokens reused);
// an unknown id is a 404 that names it, a malformed list a 400. The demo model; skips without it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/server/server_process.h"
#include "tests/support/paged_report.h"
#include "tests/support/zip_builder.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TEST(ServerDocumentSet, CitationsNameTheDocumentAndItsPageAndAThirdReusesTheFirstTwo) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(60, 0);
    const snapdoc::testing::PagedReport report =
        snapdoc::testing::paged_report(repo_path("resources/samples/demo-report.txt"));
    const auto upload = [&](const std::string& content, const std::string& name) {
        auto r = c.Post("/v1/documents",
                        httplib::MultipartFormDataItems{{"file", content, name, "application/octet-stream"}});
        EXPECT_TRUE(r);
        if (!r) return std::string();
        EXPECT_EQ(r->status, 202) << r->body;
        const std::string id = json::parse(r->body).value("id", "");
        json doc;
        for (int i = 0; i < 600; ++i) {  // at most 60 s
            doc = http_get(s.port(), "/v1/documents/" + id).json();
            if (doc["status"] == "ready" || doc["status"] == "failed") break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_EQ(doc["status"], "ready") << doc.dump();
        EXPECT_EQ(doc["name"], name) << doc.dump();
        return id;
    };
    const std::string a = upload("The harbour office opens at nine.\nThe mill closes on Fridays.\n", "A.txt");
    const std::string b = upload(snapdoc::testing::build_pdf(report.pages, "Farm Records"), "B.pdf");
    const std::string cc = upload("Notes of the lighthouse keeper.\nThe lamp was lit at dusk.\n", "C.txt");
    ASSERT_FALSE(a.empty() || b.empty() || cc.empty());

    const auto ask = [&](const json& ids) {
        json body = chat_body(report.question, 16);
        body["document_ids"] = ids;
        return post_json(s.port(), "/v1/chat/completions", body);
    };
    Reply r = ask({a, b});
    ASSERT_EQ(r.status, 200) << r.body;
    json j = r.json();
    ASSERT_FALSE(j["citations"].empty()) << j.dump();
    const json& first = j["citations"][0];
    EXPECT_EQ(first["document"], "B.pdf") << j["citations"].dump();
    EXPECT_EQ(first["document_id"], b) << j["citations"].dump();
    EXPECT_EQ(first["document_index"], 2) << j["citations"].dump();
    EXPECT_EQ(first["page"], report.fact_page) << j["citations"].dump();
    EXPECT_NE(first["text"].get<std::string>().find(report.value), std::string::npos) << j.dump();
    const int two = j["usage"]["snapkv"]["document_tokens"];

    // [A, B, C]: the held [A, B] gives its rows; C and what follows are prefilled.
    r = ask({a, b, cc});
    ASSERT_EQ(r.status, 200) << r.body;
    j = r.json();
    EXPECT_EQ(j["usage"]["snapkv"]["session"], "partial") << j["usage"].dump();
    EXPECT_EQ(j["usage"]["snapkv"]["reused_tokens"], two) << j["usage"].dump();
    EXPECT_GT(j["usage"]["snapkv"]["document_tokens"].get<int>(), two) << j["usage"].dump();
    ASSERT_FALSE(j["citations"].empty()) << j.dump();
    EXPECT_EQ(j["citations"][0]["document"], "B.pdf") << j["citations"].dump();
    EXPECT_EQ(j["citations"][0]["page"], report.fact_page) << j["citations"].dump();

    // One id in the list is the one-document chat: no "document" in its citations.
    r = ask({b});
    ASSERT_EQ(r.status, 200) << r.body;
    for (const auto& cit : r.json()["citations"]) EXPECT_FALSE(cit.contains("document")) << r.body;

    // Bad lists: an unknown id (404, named), a repeated one, both fields, a non-array.
    r = ask({a, "doc-nope"});
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_NE(r.body.find("doc-nope"), std::string::npos) << r.body;
    r = ask({a, a});
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.body.find("listed twice"), std::string::npos) << r.body;
    json both = chat_body(report.question, 4);
    both["document_id"] = a;
    both["document_ids"] = {a, b};
    EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", both).status, 400);
    r = ask(a);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.body.find("document_ids"), std::string::npos) << r.body;
    r = ask(json::array());
    EXPECT_EQ(r.status, 400) << r.body;
    // Documents uploaded with different system prompts cannot share one conversation.
    const Reply other = post_json(s.port(), "/v1/documents",
                                  {{"text", "The bakery sells rye bread."}, {"system", "Be terse."}, {"name", "D.txt"}});
    ASSERT_EQ(other.status, 202) << other.body;
    EXPECT_EQ(other.json()["name"], "D.txt");
    r = ask({a, other.json()["id"]});
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.body.find("different system prompts"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace snapdoc::test
