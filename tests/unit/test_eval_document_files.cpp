// Generated documents written out (eval-niah --docs-out, snapdoc-cli make-sample): the text and the
// .questions.tsv beside it; the long sample's asked facts at spread depths, in document order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/eval/document_files.h"
#include "app/eval/niah.h"
#include "engine/common/error.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::eval {
namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int words(std::string_view s) {
    std::istringstream in{std::string(s)};
    int n = 0;
    for (std::string w; in >> w;) ++n;
    return n;
}

TEST(EvalDocumentFiles, QuestionsPathSitsBesideTheDocument) {
    EXPECT_EQ(questions_path("a/b/report.txt"), std::filesystem::path("a/b/report.questions.tsv"));
    EXPECT_EQ(questions_path("report"), std::filesystem::path("report.questions.tsv"));
    EXPECT_EQ(niah_document_name(16384, 0.5, 2), "niah-L16384-d50-t2.txt");
    EXPECT_EQ(niah_document_name(512, 1.0, 0), "niah-L512-d100-t0.txt");
}

TEST(EvalDocumentFiles, WritesTextAndQuestionsAndCreatesTheFolder) {
    const testing::TempDir tmp_dir("snapdoc_test_document_files");  // unique: ctest runs tests in parallel
    const std::filesystem::path& dir = tmp_dir.path();
    const Fact a{"access code", "north", "gate", "7391"};
    const Fact b{"room number", "red", "tower", "1234"};
    write_document_files(dir / "sub" / "doc.txt", "Title\n\nSome text.", {a, b});
    EXPECT_EQ(slurp(dir / "sub" / "doc.txt"), "Title\n\nSome text.\n");
    EXPECT_EQ(slurp(dir / "sub" / "doc.questions.tsv"),
              "What is the access code for the north gate?\t7391\nWhat is the room number for the red tower?\t1234\n");
}

TEST(EvalDocumentFiles, UnwritablePathIsAnError) {
    const testing::TempDir tmp_dir("snapdoc_test_document_files_dir");  // unique: ctest runs tests in parallel
    const std::filesystem::path& dir = tmp_dir.path();
    EXPECT_THROW(write_document_files(dir, "x", {}), Error);  // a folder, not a file
}

TEST(EvalDocumentFiles, SampleAsksSpreadFactsInDocumentOrder) {
    Rng rng(7);
    const TokenCounter count = [](std::string_view s) { return words(s) + 1; };
    const SampleDocument s = sample_document(rng, 4000, count, 5, 4);
    ASSERT_EQ(s.asked.size(), 5u);
    EXPECT_EQ(s.document.facts.size(), 16u);  // 4 per 1000 of 4000 tokens
    std::size_t last = 0;
    for (std::size_t i = 0; i < s.asked.size(); ++i) {
        const std::size_t at = s.document.text.find(s.asked[i].sentence());
        ASSERT_NE(at, std::string::npos) << s.asked[i].sentence();
        EXPECT_GT(at, last);
        const double depth = static_cast<double>(at) / static_cast<double>(s.document.text.size());
        EXPECT_NEAR(depth, (i + 0.5) / 5, 0.06) << i;
        last = at;
    }
    EXPECT_THROW(sample_document(rng, 4000, count, 0, 4), Error);
}

}  // namespace
}  // namespace snapdoc::eval
