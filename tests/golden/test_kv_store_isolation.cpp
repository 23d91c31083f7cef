// This suite never touches the user's K/V cache: XDG_CACHE_HOME is a temporary folder for the whole
// process and every snapdoc-cli it runs (tests/support/isolated_kv_cache.h).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/isolated_kv_cache.h"

namespace snapdoc {
namespace {

const testing::IsolatedKvCacheHome kIsolated;

TEST(KvStoreIsolation, GoldenSuiteUsesATemporaryCacheFolder) {
    ASSERT_NE(std::getenv("XDG_CACHE_HOME"), nullptr);
    EXPECT_EQ(std::filesystem::path(std::getenv("XDG_CACHE_HOME")), kIsolated.path());
}

}  // namespace
}  // namespace snapdoc
