// app/common/resource_paths.h: the bundled data is found beside the executable (the build tree's
// build/share/snapdoc link here, <prefix>/share/snapdoc once installed) or where
// SNAPDOC_RESOURCES_DIR says, and a missing folder is an error naming the places searched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/common/resource_paths.h"
#include "app/common/version_text.h"
#include "engine/common/error.h"
#include "engine/common/executable_path.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

// Sets SNAPDOC_RESOURCES_DIR for one test and restores the absence after.
class ResourcesEnv {
public:
    explicit ResourcesEnv(const fs::path& dir) { setenv("SNAPDOC_RESOURCES_DIR", dir.c_str(), 1); }
    ~ResourcesEnv() { unsetenv("SNAPDOC_RESOURCES_DIR"); }
};

fs::path temp_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("snapdoc-packaging-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

TEST(ResourcePaths, BuildTreeFindsTheSourceResourcesBesideTheExecutable) {
    unsetenv("SNAPDOC_RESOURCES_DIR");
    const fs::path expected = (executable_dir() / ".." / "share" / "snapdoc").lexically_normal();
    ASSERT_EQ(resource_dir_candidates(), std::vector<fs::path>{expected});
    EXPECT_EQ(resource_dir(), expected);
    // build/share/snapdoc is the source tree's resources/ (top-level CMakeLists.txt).
    EXPECT_EQ(fs::canonical(bundled_demo_model()),
              fs::canonical(fs::path(SNAPDOC_SOURCE_DIR) / "resources" / "models" / "snapdoc-demo.gguf"));
    EXPECT_TRUE(fs::is_regular_file(resource_dir() / "samples" / "demo-report.txt"));
    EXPECT_EQ(resolve_model_spec("demo"), bundled_demo_model());
}

TEST(ResourcePaths, MissingFolderNamesEveryPlaceSearched) {
    const fs::path empty = temp_dir("empty");
    ResourcesEnv env(empty);
    try {
        resource_dir();
        FAIL() << "expected an Error for a folder without the demo model";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(empty.string()), std::string::npos) << msg;
        EXPECT_NE(msg.find("SNAPDOC_RESOURCES_DIR"), std::string::npos) << msg;
    }
    EXPECT_THROW(resolve_model_spec("demo"), Error);
    // Only the word "demo" is special; other names pass through untouched.
    EXPECT_EQ(resolve_model_spec("model.gguf"), fs::path("model.gguf"));
    fs::remove_all(empty);
}

TEST(ResourcePaths, EnvironmentFolderWins) {
    const fs::path dir = temp_dir("custom");
    fs::create_directories(dir / "models");
    std::ofstream(dir / "models" / "snapdoc-demo.gguf") << "x";
    ResourcesEnv env(dir);
    EXPECT_EQ(resource_dir(), dir);
    EXPECT_EQ(resolve_model_spec("demo"), dir / "models" / "snapdoc-demo.gguf");
    EXPECT_NE(version_text("x").find("resources: " + dir.string() + "\n"), std::string::npos) << version_text("x");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace snapdoc
