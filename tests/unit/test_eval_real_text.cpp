// Real-text haystacks (app/eval/real_text.h): paragraph splitting of a source file, and documents
// assembled from sources with facts at their depths. The texts here are written by the test; the
// Debian texts themselves are used by tests/golden/test_realtext_demo.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/eval/real_text.h"
#include "engine/common/error.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::eval {
namespace {

int words(std::string_view s) {
    int n = 0;
    bool in = false;
    for (char c : s) {
        const bool w = c != ' ' && c != '\n';
        n += w && !in;
        in = w;
    }
    return n;
}

TEST(EvalRealText, SplitsParagraphsCutsLongOnesAndDropsTheQuestionPrefix) {
    const testing::TempDir tmp_dir("snapdoc-test");  // unique: ctest runs tests in parallel
    const auto path = tmp_dir / "snapdoc_real_text_source.txt";
    std::string long_para;
    for (int i = 0; i < 100; ++i) long_para += "line " + std::to_string(i) + " of a file without blank lines\n";
    {
        std::ofstream out(path);
        out << "  First paragraph,\ntwo lines.  \n\n\n\nSecond.\n\nQuestion: not text the model may see\n\n"
            << long_para;
    }
    const TextSource s = read_text_source(path);
    ASSERT_GE(s.paragraphs.size(), 4u);
    EXPECT_EQ(s.paragraphs[0], "First paragraph,\ntwo lines.");
    EXPECT_EQ(s.paragraphs[1], "Second.");
    std::string rest;
    for (std::size_t i = 2; i < s.paragraphs.size(); ++i) {
        EXPECT_LE(s.paragraphs[i].size(), 1500u);
        EXPECT_EQ(s.paragraphs[i].find("Question:"), std::string::npos);
        EXPECT_EQ(s.paragraphs[i].back(), 's') << "cut at a line end: " << s.paragraphs[i];
        rest += s.paragraphs[i] + "\n";
    }
    EXPECT_EQ(rest, long_para);
    EXPECT_TRUE(read_text_source("/nonexistent/snapdoc/file").paragraphs.empty());
}

TEST(EvalRealText, DocumentsMeetTheLengthAndHoldTheFactsAtTheirDepths) {
    std::vector<TextSource> sources(2);
    for (int i = 0; i < 300; ++i) {
        sources[0].paragraphs.push_back("Legal paragraph " + std::to_string(i) + " with some words in it.");
        sources[1].paragraphs.push_back("def f" + std::to_string(i) + "(x):\n    return x");
    }
    Rng rng(3);
    const std::vector<Fact> facts = make_facts(rng, 3, 0.5);
    const Document doc = real_text_document(rng, sources, 2000, words, facts, {0.9, 0.1, 0.5});
    // The assembler counts two tokens per paragraph break on top of the paragraphs' own counts.
    int breaks = 0;
    for (std::size_t at = doc.text.find("\n\n"); at != std::string::npos; at = doc.text.find("\n\n", at + 2)) ++breaks;
    const int length = words(doc.text) + 2 * (breaks + 1);
    EXPECT_GE(length, 2000);
    EXPECT_LT(length, 2040);
    ASSERT_EQ(doc.facts.size(), 3u);
    EXPECT_EQ(doc.depths, (std::vector<double>{0.1, 0.5, 0.9}));
    EXPECT_EQ(doc.facts[0].sentence(), facts[1].sentence());
    std::size_t prev = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t at = doc.text.find("\n\n" + doc.facts[i].sentence() + "\n\n");
        ASSERT_NE(at, std::string::npos) << doc.facts[i].sentence();
        const double depth = static_cast<double>(at) / static_cast<double>(doc.text.size());
        EXPECT_NEAR(depth, doc.depths[i], 0.05) << doc.facts[i].sentence();
        EXPECT_GT(at, prev);
        prev = at;
    }
    EXPECT_NE(doc.text.find("Legal paragraph"), std::string::npos);
    EXPECT_NE(doc.text.find("def f"), std::string::npos);
    EXPECT_THROW(real_text_document(rng, {}, 100, words, facts, {0.1, 0.5, 0.9}), Error);
}

}  // namespace
}  // namespace snapdoc::eval
