// Issue 41, item 4: snapdoc-server reads an uploaded .docx, .odt, .epub or .pdf as the CLI and the
// app do. A generated .docx whose text is a Markdown upload's text is the same document (the
// registry answers with the same id); a hostile one is a 400 with the reason. Issue 41, item 2: a
// scanned .pdf is read by OCR, in the language of an "ocr_lang" part.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tests/server/server_process.h"
#include "tests/support/paged_report.h"
#include "tests/support/scanned_pdf.h"
#include "tests/support/temp_dir.h"
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

// Issue 41, item 3: a document chat about an uploaded PDF cites the page its fact is on ("page",
// 1-based), also after its session was evicted and loaded again; a text upload's citations have no
// "page" at all.
TEST(ServerDocumentFormats, CitationsOfAPdfUploadNameTheirPage) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    // A RAM cap of 0 keeps only the session in use: the second upload evicts the PDF's.
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--session-ram-mb", "0"});
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(60, 0);
    const snapdoc::testing::PagedReport report = snapdoc::testing::paged_report(repo_path("resources/samples/demo-report.txt"));
    const auto upload = [&](const std::string& content, const std::string& name) {
        auto r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", content, name, "application/octet-stream"}});
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
        return id;
    };
    const auto ask = [&](const std::string& id) {
        json b = chat_body(report.question, 16);
        b["document_id"] = id;
        const json r = post_json(s.port(), "/v1/chat/completions", b).json();
        EXPECT_TRUE(r.contains("citations")) << r.dump();
        return r;
    };
    const std::string pdf = upload(snapdoc::testing::build_pdf(report.pages, "Farm Records"), "report.pdf");
    ASSERT_FALSE(pdf.empty());
    json r = ask(pdf);
    ASSERT_FALSE(r["citations"].empty()) << r.dump();
    EXPECT_EQ(r["citations"][0]["page"], report.fact_page) << r["citations"].dump();
    EXPECT_NE(r["citations"][0]["text"].get<std::string>().find(report.value), std::string::npos) << r.dump();

    const std::string txt = upload(report.plain_text(), "report.txt");
    ASSERT_FALSE(txt.empty());
    r = ask(txt);
    ASSERT_FALSE(r["citations"].empty()) << r.dump();
    for (const auto& cit : r["citations"]) EXPECT_FALSE(cit.contains("page")) << r["citations"].dump();

    r = ask(pdf);  // its session was evicted by the text's: loaded again, with its pages
    EXPECT_NE(r["usage"]["snapkv"]["session"], "ram") << r.dump();
    ASSERT_FALSE(r["citations"].empty()) << r.dump();
    EXPECT_EQ(r["citations"][0]["page"], report.fact_page) << r["citations"].dump();
}

TEST(ServerDocumentFormats, AScannedPdfUploadIsReadByOcr) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    if (!fs::exists("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata") && !std::getenv("TESSDATA_PREFIX"))
        GTEST_SKIP() << "tesseract-ocr-eng is not installed (scripts/install-deps.sh installs it)";
    // The server (a child) inherits XDG_CACHE_HOME: its OCR cache goes to this test's folder.
    snapdoc::testing::TempDir cache;
    const char* old = std::getenv("XDG_CACHE_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    if (old)
        setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(120, 0);
    const std::string scan = snapdoc::testing::build_scanned_pdf(
        {snapdoc::testing::scan_page({"The batch number for the copper office is 4807."})});

    auto r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", scan, "scan.pdf", "application/pdf"},
                                                                      {"ocr_lang", "zzz", "", ""}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_EQ(json::parse(r->body)["error"]["code"], "unreadable_document") << r->body;
    EXPECT_NE(r->body.find("tesseract-ocr-zzz"), std::string::npos) << r->body;
    EXPECT_FALSE(fs::exists(cache / "snapdoc" / "ocr"));

    r = c.Post("/v1/documents", httplib::MultipartFormDataItems{{"file", scan, "scan.pdf", "application/pdf"},
                                                                 {"ocr_lang", "eng", "", ""}});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    // The recognised text was cached: one file for this PDF in English.
    ASSERT_TRUE(fs::is_directory(cache / "snapdoc" / "ocr"));
    int files = 0;
    for (const auto& e : fs::directory_iterator(cache / "snapdoc" / "ocr"))
        files += e.path().string().ends_with("-eng.json");
    EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace snapdoc::test
