// snapdoc-cli ask on a generated .docx answers exactly as on the same text saved as .md (the
// demo model, greedy): the DOCX reader's text is the Markdown text, so the prompt is the same.
// And a .pdf is read through its text layer, not refused as binary, and a scanned one by OCR.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/documents/document_reader.h"
#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
#include "tests/support/scanned_pdf.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

std::string w_p(const std::string& text, const std::string& style = "") {
    return "<w:p>" + (style.empty() ? "" : "<w:pPr><w:pStyle w:val=\"" + style + "\"/></w:pPr>") +
           "<w:r><w:t>" + text + "</w:t></w:r></w:p>";
}

class CliDocumentFormats : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(testing::demo_model_path()))
            GTEST_SKIP() << "demo model absent: " << testing::demo_model_path().string();
    }
    CommandResult ask(const fs::path& doc, const std::string& question = "What is the access code for the north gate?",
                      const std::string& flags = "") {
        // XDG_CACHE_HOME: the OCR cache goes to this test's folder, not the user's.
        return run_command("XDG_CACHE_HOME='" + (dir / "cache").string() + "' timeout 120 " +
                           std::string(SNAPDOC_CLI_PATH) + " ask --no-cache -m '" +
                           testing::demo_model_path().string() + "' --doc '" + doc.string() + "' -q '" + question +
                           "' -n 16 " + flags + " 2>'" + (dir / "err.txt").string() + "'");
    }
    std::string err() {
        std::ifstream in(dir / "err.txt");
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    testing::TempDir dir;
};

TEST_F(CliDocumentFormats, DocxAnswersLikeTheSameTextInMarkdown) {
    const std::string styles =
        "<?xml version=\"1.0\"?><w:styles xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
        "<w:style w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style></w:styles>";
    std::ofstream(dir / "report.docx", std::ios::binary)
        << testing::build_docx(w_p("Report of the harbour office", "Heading1") +
                                   w_p("The access code for the north gate is 7391.") +
                                   w_p("The green office keeps batch number 4410."),
                               {{"word/styles.xml", styles}});
    const std::string markdown =
        "# Report of the harbour office\n\nThe access code for the north gate is 7391.\n\n"
        "The green office keeps batch number 4410.\n";
    std::ofstream(dir / "report.md") << markdown;
    ASSERT_EQ(documents::read_document(dir / "report.docx").text, markdown);
    const CommandResult from_docx = ask(dir / "report.docx");
    ASSERT_EQ(from_docx.status, 0) << err();
    const CommandResult from_md = ask(dir / "report.md");
    ASSERT_EQ(from_md.status, 0) << err();
    EXPECT_FALSE(from_docx.output.empty());
    EXPECT_EQ(from_docx.output, from_md.output);
}

TEST_F(CliDocumentFormats, PdfIsReadThroughItsTextLayer) {
    std::ofstream(dir / "report.pdf", std::ios::binary)
        << testing::build_pdf({{"Report of the harbour office.", "The access code for the north gate is 7391."}});
    const CommandResult r = ask(dir / "report.pdf");
    EXPECT_EQ(r.status, 0) << err();
    EXPECT_EQ(err().find("looks binary"), std::string::npos) << err();
}

TEST_F(CliDocumentFormats, ScannedPdfIsReadByOcrAndItsPageTwoFactAnswered) {
    if (!fs::exists("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata") && !std::getenv("TESSDATA_PREFIX"))
        GTEST_SKIP() << "tesseract-ocr-eng is not installed (scripts/install-deps.sh installs it)";
    std::ofstream(dir / "scan.pdf", std::ios::binary) << testing::build_scanned_pdf(
        {testing::scan_page({"Harbour report for the north", "The boats were counted in May."}),
         testing::scan_page({"The batch number for the copper office is 4807.", "The ledger was closed."})});
    // 4807: the demo model answers with values from its training pool (tools/demo_model), not any number.
    // --no-citations: the output is the model's answer alone, not the passage it cites.
    const CommandResult r =
        ask(dir / "scan.pdf", "What is the batch number for the copper office?", "--ocr-lang eng --no-citations");
    ASSERT_EQ(r.status, 0) << err();
    EXPECT_NE(r.output.find("is 4807"), std::string::npos) << r.output;
    EXPECT_NE(err().find("OCR page 2/2 (PDF page 2), ~"), std::string::npos) << err();
    EXPECT_NE(err().find("their text was recognised by OCR (eng): 1, 2"), std::string::npos) << err();
    // The second run reads the OCR cache: no OCR progress.
    const CommandResult again = ask(dir / "scan.pdf", "What is the batch number for the copper office?", "--no-citations");
    ASSERT_EQ(again.status, 0) << err();
    EXPECT_EQ(again.output, r.output);
    EXPECT_EQ(err().find("OCR page"), std::string::npos) << err();
    EXPECT_NE(err().find("from the OCR cache"), std::string::npos) << err();
    // A language that is not installed, and OCR turned off, are one clear error each.
    EXPECT_NE(ask(dir / "scan.pdf", "Which?", "--ocr-lang zzz").status, 0);
    EXPECT_NE(err().find("install the package tesseract-ocr-zzz"), std::string::npos) << err();
    EXPECT_NE(ask(dir / "scan.pdf", "Which?", "--no-ocr").status, 0);
    EXPECT_NE(err().find("OCR is off"), std::string::npos) << err();
}

TEST_F(CliDocumentFormats, AHostileDocxIsOneClearError) {
    std::ofstream(dir / "bad.docx", std::ios::binary) << testing::build_zip({{"../evil.txt", "boo"}});
    const CommandResult r = ask(dir / "bad.docx");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(err().find("unsafe name"), std::string::npos) << err();
}

}  // namespace
}  // namespace snapdoc
