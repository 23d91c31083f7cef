// Several documents in one `snapdoc-cli ask` (issue 41 item 5): --doc A.txt --doc B.pdf answers a
// fact on page 3 of B, cited with B's name and page 3 (in --json and on stdout); asking about
// [A, B, C] after [A, B] with the K/V cache prefills only C; a missing second document is refused
// by name as one missing document is, with no --json written; documents that do not fit the
// context are refused with each one's share. Runs the committed demo model (docs/demo_model.md);
// skips with a message when it is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/paged_report.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using testing::demo_model_path;

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

class CliDocumentSet : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path()))
            GTEST_SKIP() << "demo model " << demo_model_path().string() << " is absent (docs/demo_model.md); skipping";
        report = testing::paged_report(testing::repo_root() / "resources" / "samples" / "demo-report.txt");
        std::ofstream(dir.path() / "A.txt") << "The harbour office opens at nine.\nThe mill closes on Fridays.\n";
        std::ofstream(dir.path() / "B.pdf", std::ios::binary) << testing::build_pdf(report.pages, "Farm Records");
        std::ofstream(dir.path() / "C.txt") << "Notes of the lighthouse keeper.\nThe lamp was lit at dusk.\n";
    }
    // Runs ask over `docs` (file names in dir); stderr goes to err.txt.
    CommandResult ask(const std::vector<std::string>& docs, const std::string& json_name, const std::string& flags = "") {
        std::string cmd = "XDG_CACHE_HOME=" + shell_quoted((dir.path() / "xdg").string()) + " timeout 300 " +
                          std::string(SNAPDOC_CLI_PATH) + " ask -m " + shell_quoted(demo_model_path().string());
        for (const auto& d : docs) cmd += " --doc " + shell_quoted((dir.path() / d).string());
        cmd += " -q " + shell_quoted(report.question) + " -n 16 --json " + shell_quoted((dir.path() / json_name).string()) + " " +
               flags + " 2>" + shell_quoted((dir.path() / "err.txt").string());
        return run_command(cmd);
    }
    std::string err() const { return read_text_file(dir.path() / "err.txt"); }
    nlohmann::json json_of(const std::string& name) const {
        return nlohmann::json::parse(read_text_file(dir.path() / name));
    }

    testing::TempDir dir{"snapdoc-cli-document-set"};
    testing::PagedReport report;
};

TEST_F(CliDocumentSet, AFactOnPageThreeOfTheSecondDocumentIsCitedWithItsNameAndPage) {
    const CommandResult r = ask({"A.txt", "B.pdf"}, "two.json", "--no-cache");
    ASSERT_EQ(r.status, 0) << err();
    const nlohmann::json out = json_of("two.json");
    EXPECT_FALSE(out.contains("document")) << out.dump();
    ASSERT_EQ(out.at("documents").size(), 2u) << out.dump();
    EXPECT_EQ(out["documents"][0]["document"], "A.txt");
    EXPECT_EQ(out["documents"][1]["document"], "B.pdf");
    EXPECT_EQ(out["documents"][1]["pages"], 3);
    EXPECT_FALSE(out["documents"][0].contains("pages"));
    const auto& citations = out.at("answers").at(0).at("citations");
    ASSERT_FALSE(citations.empty()) << out.dump();
    EXPECT_EQ(citations[0].at("document"), "B.pdf") << citations.dump();
    EXPECT_EQ(citations[0].at("document_index"), 2) << citations.dump();
    EXPECT_EQ(citations[0].at("page"), report.fact_page) << citations.dump();
    EXPECT_NE(citations[0].at("text").get<std::string>().find(report.value), std::string::npos) << citations.dump();
    for (const auto& c : citations) {
        if (c["document"] == "A.txt") EXPECT_FALSE(c.contains("page")) << citations.dump();
    }
    EXPECT_NE(r.output.find("  [1] B.pdf, page 3, tokens "), std::string::npos) << r.output;
    EXPECT_NE(err().find("documents: A.txt "), std::string::npos) << err();
}

TEST_F(CliDocumentSet, AThirdDocumentPrefillsOnlyItselfAfterTheFirstTwoWereCached) {
    ASSERT_EQ(ask({"A.txt", "B.pdf"}, "two.json").status, 0) << err();
    const int two = json_of("two.json").at("document_tokens");
    EXPECT_EQ(json_of("two.json").at("reused_document_tokens"), 0);
    ASSERT_EQ(ask({"A.txt", "B.pdf", "C.txt"}, "three.json").status, 0) << err();
    const nlohmann::json three = json_of("three.json");
    EXPECT_EQ(three.at("reused_document_tokens"), two) << three.dump();
    EXPECT_GT(three.at("document_tokens").get<int>(), two);
    EXPECT_NE(err().find("K/V cache: documents 1-2 (" + std::to_string(two) + " tokens) restored"), std::string::npos)
        << err();
    // The order counts: [B, A] is another conversation, nothing of [A, B] is a prefix of it.
    ASSERT_EQ(ask({"B.pdf", "A.txt", "C.txt"}, "other.json").status, 0) << err();
    EXPECT_EQ(json_of("other.json").at("reused_document_tokens"), 0);
}

TEST_F(CliDocumentSet, AMissingSecondDocumentIsRefusedByNameLikeOneMissingDocument) {
    const CommandResult one = ask({"missing.pdf"}, "one.json", "--no-cache");
    const std::string one_err = err();
    const CommandResult two = ask({"A.txt", "missing.pdf"}, "bad.json", "--no-cache");
    EXPECT_NE(two.status, 0);
    EXPECT_EQ(two.status, one.status) << one_err << "\n" << err();
    EXPECT_NE(err().find("missing.pdf"), std::string::npos) << err();
    EXPECT_NE(err().find("document 2 of 2"), std::string::npos) << err();
    EXPECT_FALSE(fs::exists(dir.path() / "bad.json"));
    EXPECT_FALSE(fs::exists(dir.path() / "one.json"));
    // An unreadable one (binary junk named .pdf) too.
    std::ofstream(dir.path() / "junk.pdf", std::ios::binary) << std::string("\x01\x02junk", 6);
    const CommandResult junk = ask({"A.txt", "junk.pdf"}, "junk.json", "--no-cache");
    EXPECT_EQ(junk.status, one.status) << err();
    EXPECT_NE(err().find("junk.pdf"), std::string::npos) << err();
    EXPECT_FALSE(fs::exists(dir.path() / "junk.json"));
}

TEST_F(CliDocumentSet, DocumentsThatDoNotFitAreRefusedWithEachOnesShare) {
    // Past the demo model's 131072-token context (about 9 tokens a line), refused before any prefill.
    std::string big;
    for (int i = 0; i < 16000; ++i) big += "The harbour record " + std::to_string(i) + " is long.\n";
    std::ofstream(dir.path() / "big.txt") << big;
    const CommandResult r = ask({"A.txt", "big.txt"}, "big.json", "--no-cache");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(err().find("documents + question + answer"), std::string::npos) << err();
    EXPECT_NE(err().find("the documents: A.txt "), std::string::npos) << err();
    EXPECT_NE(err().find("big.txt "), std::string::npos) << err();
    EXPECT_FALSE(fs::exists(dir.path() / "big.json"));
}

}  // namespace
}  // namespace snapdoc
