// engine/runtime/cuda_module_loader.h: what happens when the CUDA module is missing, is not a
// snapdoc module, comes from another build, or (in a build with the toolkit) is the real one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/common/executable_path.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cuda_module_loader.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CudaModuleLoader, MissingFileSaysWhichAndWhy) {
    const CudaModuleStatus s = load_cuda_module("/nonexistent/libsnapdoc-cuda.so");
    EXPECT_EQ(s.api, nullptr);
    EXPECT_TRUE(contains(s.error, "cannot load the CUDA module /nonexistent/libsnapdoc-cuda.so")) << s.error;
    EXPECT_TRUE(contains(s.error, "No such file")) << s.error;  // dlerror's own words
}

TEST(CudaModuleLoader, SharedObjectWithoutTheEntryIsRefused) {
    const CudaModuleStatus s = load_cuda_module(SNAPDOC_TEST_NOT_A_MODULE);
    EXPECT_EQ(s.api, nullptr);
    EXPECT_TRUE(contains(s.error, "no snapdoc_cuda_module_v1")) << s.error;
}

TEST(CudaModuleLoader, ModuleFromAnotherBuildIsRefused) {
    const CudaModuleStatus s = load_cuda_module(SNAPDOC_TEST_FOREIGN_MODULE);
    EXPECT_EQ(s.api, nullptr);
    EXPECT_TRUE(contains(s.error, "built for snapdoc 0.0.0 elsewhere")) << s.error;
}

TEST(CudaModuleLoader, LooksBesideTheExecutable) {
    EXPECT_EQ(installed_cuda_module_path(),
              (executable_dir() / ".." / "lib" / "snapdoc" / "libsnapdoc-cuda.so").lexically_normal());
}

// The factory without a usable CUDA backend: "auto" is the CPU and "cuda" says why. In a build with
// the toolkit and a GPU the module loads and a device is there, so only the CPU case is checked.
TEST(CudaModuleLoader, FactoryFallsBackToTheCpuWithAReason) {
    if (cuda_backend_usable()) GTEST_SKIP() << "a CUDA device is usable here";
    EXPECT_EQ(resolve_device("auto"), "cpu");
    EXPECT_FALSE(cuda_module_summary().empty());
    if (!cuda_backend_built()) EXPECT_FALSE(cuda_module().error.empty());
}

#ifdef SNAPDOC_TEST_CUDA_MODULE
// The real module of this build, through dlopen as the installed programs load it: it must load
// where the CUDA libraries are (they are, on a machine that built it) and answer without a GPU.
TEST(CudaModuleLoader, RealModuleLoadsAndAnswers) {
    const CudaModuleStatus s = load_cuda_module(SNAPDOC_TEST_CUDA_MODULE);
    ASSERT_NE(s.api, nullptr) << s.error;
    EXPECT_EQ(s.api->abi, kCudaModuleAbi);
    const int n = s.api->device_count();
    EXPECT_GE(n, 0);
    if (n == 0) EXPECT_FALSE(s.api->unavailable_reason().empty());
    // The build-tree programs find the same file beside them (build/<dir>/../lib/snapdoc).
    EXPECT_EQ(fs::canonical(installed_cuda_module_path()), fs::canonical(SNAPDOC_TEST_CUDA_MODULE));
}
#endif

}  // namespace
}  // namespace snapdoc
