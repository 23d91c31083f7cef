// Linked into the unit and golden test binaries: when SNAPDOC_CPU_KERNELS forces a kernel level
// this CPU (or this build) cannot run, every test of the run is skipped with one message, which
// ctest's SKIP_REGULAR_EXPRESSION turns into a skipped test (the per-level runs of
// tests/CMakeLists.txt register every level, and the CPU decides which of them run). Without the
// variable, or with a level the CPU has, it does nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/runtime/cpu/kernel_level.h"

namespace {

class ForcedKernelLevel : public testing::Environment {
public:
    void SetUp() override {
        const char* forced = std::getenv("SNAPDOC_CPU_KERNELS");
        if (forced == nullptr || *forced == '\0') return;
        const auto level = snapdoc::cpu::parse_kernel_level(forced);
        ASSERT_TRUE(level.has_value()) << "SNAPDOC_CPU_KERNELS=" << forced << " is not a kernel level";
        if (!snapdoc::cpu::kernel_level_available(*level))
            GTEST_SKIP() << "forced kernel level " << forced << " is not available on this CPU (best here: "
                         << snapdoc::cpu::kernel_level_name(snapdoc::cpu::best_kernel_level()) << ")";
    }
};

const testing::Environment* const kRegistered = testing::AddGlobalTestEnvironment(new ForcedKernelLevel);

}  // namespace
