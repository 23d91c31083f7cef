// snapdoc-cli ask and the K/V cache: the second run over a document is served from the cache
// (stderr says so) and prints the same answer; --no-cache neither reads nor writes it; the default
// folder follows XDG_CACHE_HOME (here the suite's temporary one, never the user's).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

using testing::demo_model_path;

int snapkv_files(const fs::path& dir) {
    int n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().extension() == ".snapkv";
    return n;
}

class KvCacheCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path()))
            GTEST_SKIP() << "demo model absent: " << demo_model_path().string();
        std::ofstream(dir / "doc.txt")
            << "Report of the harbour office.\nThe access code for the north gate is 7391. "
               "The green office keeps batch number 4410.\n";
    }
    // stdout and stderr in separate files so the answer can be compared alone.
    CommandResult ask(const std::string& extra, std::string* err = nullptr) {
        const CommandResult r =
            run_command("timeout 120 " + std::string(SNAPDOC_CLI_PATH) + " ask -m '" +
                        demo_model_path().string() + "' --doc '" + (dir / "doc.txt").string() +
                        "' -q 'What is the access code for the north gate?' -n 16 " + extra + " 2>'" +
                        (dir / "err.txt").string() + "'");
        if (err) {
            std::ifstream in(dir / "err.txt");
            err->assign(std::istreambuf_iterator<char>(in), {});
        }
        return r;
    }
    testing::TempDir dir;
};

TEST_F(KvCacheCli, SecondRunIsServedFromTheCacheWithTheSameAnswer) {
    const fs::path cache = dir / "kv";
    std::string err1, err2;
    const CommandResult a = ask("--cache-dir '" + cache.string() + "'", &err1);
    ASSERT_EQ(a.status, 0) << err1;
    EXPECT_EQ(err1.find("served from the K/V cache"), std::string::npos) << err1;
    EXPECT_NE(err1.find("K/V cache: saved"), std::string::npos) << err1;
    EXPECT_EQ(snapkv_files(cache), 1);
    const CommandResult b = ask("--cache-dir '" + cache.string() + "'", &err2);
    ASSERT_EQ(b.status, 0) << err2;
    EXPECT_NE(err2.find("served from the K/V cache"), std::string::npos) << err2;
    EXPECT_EQ(err2.find("prefilled in"), std::string::npos) << err2;
    EXPECT_EQ(a.output, b.output);
}

TEST_F(KvCacheCli, NoCacheLeavesNothingAndTheDefaultFolderFollowsXdg) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    ASSERT_NE(xdg, nullptr);  // set by this suite (test_kv_store_isolation.cpp)
    const fs::path default_dir = fs::path(xdg) / "snapdoc" / "kv";
    const int before = snapkv_files(default_dir);
    std::string err;
    ASSERT_EQ(ask("--no-cache", &err).status, 0) << err;
    EXPECT_EQ(err.find("K/V cache"), std::string::npos) << err;
    EXPECT_EQ(snapkv_files(default_dir), before);
    ASSERT_EQ(ask("", &err).status, 0) << err;  // the default folder: the suite's temporary XDG cache
    EXPECT_GE(snapkv_files(default_dir), 1);
    EXPECT_NE(ask("--no-cache --cache-dir /tmp/x", &err).status, 0);
}

}  // namespace
}  // namespace snapdoc
