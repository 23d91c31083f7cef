// snapdoc-cli ask on a generated .docx answers exactly as on the same text saved as .md (the
// demo model, greedy): the DOCX reader's text is the Markdown text, so the prompt is the same.
// And a .pdf is read through its text layer, not refused as binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/documents/document_reader.h"
#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
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
    CommandResult ask(const fs::path& doc) {
        return run_command("timeout 120 " + std::string(SNAPDOC_CLI_PATH) + " ask --no-cache -m '" +
                           testing::demo_model_path().string() + "' --doc '" + doc.string() +
                           "' -q 'What is the access code for the north gate?' -n 16 2>'" +
                           (dir / "err.txt").string() + "'");
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

TEST_F(CliDocumentFormats, AHostileDocxIsOneClearError) {
    std::ofstream(dir / "bad.docx", std::ios::binary) << testing::build_zip({{"../evil.txt", "boo"}});
    const CommandResult r = ask(dir / "bad.docx");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(err().find("unsafe name"), std::string::npos) << err();
}

}  // namespace
}  // namespace snapdoc
