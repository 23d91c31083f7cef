// Page numbers for citations (app/common/document_pages.h): offsets to 1-based pages, UTF-8 page
// starts to the UTF-16 offsets citations are resolved in, and starts that make no sense giving no
// pages instead of wrong ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/common/document_pages.h"

namespace snapdoc {
namespace {

TEST(DocumentPages, OffsetsFallOnThePageThatHoldsThem) {
    const std::vector<int> starts = {0, 10, 25};
    EXPECT_EQ(page_at(starts, 0), 1);
    EXPECT_EQ(page_at(starts, 9), 1);
    EXPECT_EQ(page_at(starts, 10), 2);
    EXPECT_EQ(page_at(starts, 24), 2);
    EXPECT_EQ(page_at(starts, 25), 3);
    EXPECT_EQ(page_at(starts, 1000), 3);  // past the last start: the last page
}

TEST(DocumentPages, NoStartsOrANegativeOffsetGiveNoPage) {
    EXPECT_EQ(page_at(std::vector<int>{}, 5), 0);
    EXPECT_EQ(page_at(std::vector<int>{0, 10}, -1), 0);
}

TEST(DocumentPages, StartsThatMakeNoSenseAreNotUsed) {
    EXPECT_TRUE(usable_page_starts(std::vector<int>{0, 4, 9}, 9));
    EXPECT_FALSE(usable_page_starts(std::vector<int>{}, 9));
    EXPECT_FALSE(usable_page_starts(std::vector<int>{1, 4}, 9));    // not from 0
    EXPECT_FALSE(usable_page_starts(std::vector<int>{0, 4, 4}, 9));  // not increasing
    EXPECT_FALSE(usable_page_starts(std::vector<int>{0, 12}, 9));    // past the text
    const std::string text = "one\n\ntwo\n";
    EXPECT_TRUE(page_starts_utf16(text, std::vector<std::size_t>{}).empty());
    EXPECT_TRUE(page_starts_utf16(text, std::vector<std::size_t>{0, 50}).empty());
    EXPECT_TRUE(page_starts_utf16(text, std::vector<std::size_t>{5, 0}).empty());
}

TEST(DocumentPages, Utf8StartsBecomeUtf16OffsetsBeforeTheBlankLines) {
    // "é" is two UTF-8 bytes and one UTF-16 unit; "😀" four bytes and two units (a surrogate pair).
    const std::string text = "caf\xc3\xa9\n\n\xf0\x9f\x98\x80 two\n\nthree\n";
    const std::size_t second = text.find("\xf0"), third = text.find("three");
    const std::vector<int> starts = page_starts_utf16(text, std::vector<std::size_t>{0, second, third});
    // Each start moves back over the "\n\n" before it: the gap belongs to the page that follows.
    EXPECT_EQ(starts, (std::vector<int>{0, 4, 12}));
    EXPECT_EQ(page_at(starts, 3), 1);   // "é"
    EXPECT_EQ(page_at(starts, 4), 2);   // the blank line before page 2
    EXPECT_EQ(page_at(starts, 6), 2);   // "😀"
    EXPECT_EQ(page_at(starts, 11), 2);  // the "o" of "two"
    EXPECT_EQ(page_at(starts, 14), 3);  // "three"
}

TEST(DocumentPages, AnEmptyPageKeepsTheStartsIncreasing) {
    const std::string text = "a\n\n\n\nb\n";  // pages "a", "", "b"
    const std::vector<int> starts = page_starts_utf16(text, std::vector<std::size_t>{0, 3, 5});
    ASSERT_EQ(starts.size(), 3u);
    EXPECT_TRUE(usable_page_starts(starts, 7));
    EXPECT_EQ(page_at(starts, 0), 1);
    EXPECT_EQ(page_at(starts, 5), 3);
}

}  // namespace
}  // namespace snapdoc
