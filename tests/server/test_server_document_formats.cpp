// Issue 41, item 4: snapdoc-server reads an uploaded .docx, .odt, .epub or .pdf as the CLI and the
// app do. A generated .docx whose text is a Markdown upload's text is the same document (the
// registry answers with the same id); a hostile one is a 400 with the reason.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>

#include "tests/server/server_process.h"
#include "tests/support/zip_builder.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TEST(ServerDocumentFormats, ADocxUploadIsTheSameDocumentAsItsMarkdownText) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(60, 0);
    const std::string docx = snapdoc::testing::build_docx(
        "<w:p><w:r><w:t>The access code for the north gate is 7391.</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>The green office keeps batch number 4410.</w:t></w:r></w:p>");
    auto r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", docx, "report.docx", "application/octet-stream"}});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    const std::string id = json::parse(r->body)["id"];
    const std::string markdown =
        "The access code for the north gate is 7391.\n\nThe green office keeps batch number 4410.\n";
    r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", markdown, "report.md", "text/markdown"}});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    EXPECT_EQ(json::parse(r->body)["id"], id) << r->body;

    const std::string hostile = snapdoc::testing::build_zip({{"../evil.txt", "boo"}});
    r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", hostile, "bad.docx", "application/octet-stream"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_EQ(json::parse(r->body)["error"]["code"], "unreadable_document") << r->body;
    EXPECT_NE(r->body.find("unsafe name"), std::string::npos) << r->body;
}

}  // namespace
}  // namespace snapdoc::test
