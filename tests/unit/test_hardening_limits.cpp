// Issue 14, limits: the shared up-front context check and its overflow-safe sums.
#include <gtest/gtest.h>

#include <limits>

#include "engine/common/error.h"
#include "engine/session/context_check.h"
#include "tests/support/error_text.h"

namespace snapdoc {
namespace {

using testing::error_text;

TEST(ContextCheck, RefusesPromptPlusAnswerBeyondTheContext) {
    EXPECT_NO_THROW(check_context_room(1000, 48, 1048, "doc"));
    EXPECT_EQ(
        error_text([] { check_context_room(1000, 49, 1048, "doc + answer"); }),
        "doc + answer: 1000 + 49 = 1049 tokens, but the model's context is 1048 (use a shorter input or -n, "
        "or --ignore-context)");
    EXPECT_NO_THROW(check_context_room(1000, 49, 1048, "doc", /*ignore_context=*/true));
    EXPECT_NO_THROW(check_context_room(1000000, 0, 0, "doc"));  // unknown context: only the hard bounds
}

TEST(ContextCheck, HugeCountsDoNotWrap) {
    // INT_MAX new tokens wrapped the int sum negative and slipped past the old check.
    const int64_t big = std::numeric_limits<int>::max();
    EXPECT_NE(error_text([&] { check_context_room(10, big, 2048, "x", true); }).find("is more than the"),
              std::string::npos);
    EXPECT_NE(error_text([&] { check_context_room(big, 0, 0, "x"); }).find("outside the supported range"),
              std::string::npos);
    EXPECT_NE(error_text([&] { check_context_room(10, -1, 2048, "x"); }).find("must be >= 0"),
              std::string::npos);
    EXPECT_EQ(checked_token_count(5, "x"), 5);
    EXPECT_THROW(checked_token_count(int64_t{1} << 40, "x"), Error);
}

}  // namespace
}  // namespace snapdoc
