// This suite never touches the user's K/V cache: XDG_CACHE_HOME is a temporary folder for the whole
// process and every command it runs (tests/support/isolated_kv_cache.h).
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/kv/kv_store_cache.h"
#include "tests/support/isolated_kv_cache.h"

namespace snapdoc {
namespace {

const testing::IsolatedKvCacheHome kIsolated;

TEST(KvStoreIsolation, TheDefaultCacheFolderIsTheSuitesTemporaryOne) {
    ASSERT_NE(std::getenv("XDG_CACHE_HOME"), nullptr);
    EXPECT_EQ(std::filesystem::path(std::getenv("XDG_CACHE_HOME")), kIsolated.path());
    EXPECT_EQ(KvStoreCache::default_dir(), kIsolated.path() / "snapdoc" / "kv");
}

}  // namespace
}  // namespace snapdoc
