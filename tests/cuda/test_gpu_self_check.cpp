// The GPU self-check on the device this suite runs on (the real GPU under label cuda, the emulator
// under cuda-emu): a sound device passes for every weight type, through make_backend("auto"), and the
// verdict is remembered so the next start skips the check. The failure paths (a wrong result, a
// failed launch) need injected faults and live in tests/cuda_emu/test_emu_gpu_self_check.cpp.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_gpu_identity.h"
#include "engine/runtime/gpu_self_check.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

class GpuSelfCheckOnDevice : public ::testing::TestWithParam<DType> {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        testing::TinyModelSpec spec = cudatest::gqa4_tiny_spec(11);
        tiny = cudatest::load_tiny(spec, GetParam());
        set_gpu_self_check_settings({true, false, dir / "verdicts.json"});
    }
    void TearDown() override { set_gpu_self_check_settings({}); }
    testing::TempDir dir{"snapdoc-gpu-self-check"};
    std::unique_ptr<cudatest::LoadedTiny> tiny;
};

TEST_P(GpuSelfCheckOnDevice, PassesAndIsRemembered) {
    const GpuIdentity id = cuda_gpu_identity(*tiny->model);
    auto first = make_backend(*tiny->model, {}, "auto");
    const GpuSelfCheckReport r1 = last_gpu_self_check();
    EXPECT_EQ(first->name(), "cuda") << r1.message;
    EXPECT_EQ(r1.outcome, GpuSelfCheckReport::Outcome::Passed) << r1.message;
    EXPECT_FALSE(r1.remembered);
    EXPECT_FALSE(r1.fell_back);
    EXPECT_NE(r1.message.find(id.device_name), std::string::npos) << r1.message;

    const auto v = GpuVerdictCache(dir / "verdicts.json").find(id);
    ASSERT_TRUE(v.has_value());
    EXPECT_TRUE(v->passed);
    EXPECT_LE(v->worst_nmse, v->tolerance);
    std::printf("gpu self-check %s on %s: worst logits NMSE %.3g vs cpu (tolerance %.3g)\n", id.weight_type.c_str(),
                id.device_name.c_str(), v->worst_nmse, v->tolerance);

    first.reset();
    auto second = make_backend(*tiny->model, {}, "cuda");
    EXPECT_EQ(second->name(), "cuda");
    EXPECT_TRUE(last_gpu_self_check().remembered);
}

INSTANTIATE_TEST_SUITE_P(WeightTypes, GpuSelfCheckOnDevice,
                         ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// The comparison reports a real measure, not a constant: the same model on the device computes
// within the tolerance, but not within zero (f16 K/V rounding at least).
TEST(GpuSelfCheckCompare, MeasuresTheDifference) {
    SNAPDOC_REQUIRE_CUDA();
    auto tiny = cudatest::load_tiny(cudatest::gqa4_tiny_spec(12), DType::F32);
    BackendOptions exact;
    exact.exact_prefill = true;
    auto gpu = make_cuda_backend(*tiny->model, {});
    auto cpu = make_cpu_backend(*tiny->model, exact);
    SelfCheckPlan plan;
    plan.tolerance = self_check_tolerance(DType::F32, false);
    const SelfCheckOutcome o = compare_gpu_with_cpu(*tiny->model, *gpu, *cpu, plan);
    EXPECT_TRUE(o.passed) << o.step << ": " << o.detail;
    EXPECT_GT(o.worst_nmse, 0.0);
    EXPECT_LT(o.worst_nmse, plan.tolerance);
    plan.tolerance = o.worst_nmse / 2;  // below what the device achieves: must fail, naming a step
    const SelfCheckOutcome tight = compare_gpu_with_cpu(*tiny->model, *gpu, *cpu, plan);
    EXPECT_FALSE(tight.passed);
    EXPECT_FALSE(tight.step.empty());
}

}  // namespace
}  // namespace snapdoc
