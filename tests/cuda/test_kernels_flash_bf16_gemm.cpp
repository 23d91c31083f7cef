// The projections in BF16/F16 through cuBLAS (engine/runtime/cuda/gemm.h): 16-bit inputs with f32
// accumulation (CUBLAS_COMPUTE_32F — the tensor-core path on a GPU) against a double-precision
// product of the same rounded numbers, with beta = 1 (residual add) and a wider output row (ldy);
// and, in the emulation (which counts what reaches cuBLAS), a BF16 model's prefill issuing only
// BF16 GEMMs with f32 compute, never widening the weights to f32 first.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/runtime/cuda/gemm.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#ifdef SNAPDOC_CUDA_EMU
#include "cuda_emu/control.h"
#endif

namespace snapdoc {
namespace {

using namespace cudatest;

class Gemm16 : public ::testing::TestWithParam<kernels::Dt> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(Gemm16, MatchesDoubleProductWithResidualAndRowStride) {
    const kernels::Dt dt = GetParam();
    const int n = 37, in = 96, out = 80, ldy = out + 16;
    const auto round = [&](float v) {
        return dt == kernels::Dt::BF16 ? bf16_to_f32(f32_to_bf16(v)) : f16_to_f32(f32_to_f16(v));
    };
    const auto bits = [&](float v) { return dt == kernels::Dt::BF16 ? f32_to_bf16(v) : f32_to_f16(v); };
    auto w = random_floats(static_cast<std::size_t>(out) * in, 61),
         x = random_floats(static_cast<std::size_t>(n) * in, 62);
    std::vector<uint16_t> wb(w.size()), xb(x.size());
    for (std::size_t i = 0; i < w.size(); ++i) wb[i] = bits(w[i]), w[i] = round(w[i]);
    for (std::size_t i = 0; i < x.size(); ++i) xb[i] = bits(x[i]), x[i] = round(x[i]);
    const auto y0 = random_floats(static_cast<std::size_t>(n) * ldy, 63);

    auto dw = to_device(wb), dx = to_device(xb), dy = to_device(y0);
    cuda::Gemm gemm(nullptr);
    gemm(dw.get(), dx.get(), dt, n, in, out, dy.as<float>(), 1.0f, ldy);
    const auto y = from_device<float>(dy.get(), y0.size());
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < ldy; ++c) {
            const std::size_t at = static_cast<std::size_t>(r) * ldy + c;
            if (c >= out) {  // past the product's columns: untouched
                EXPECT_EQ(y[at], y0[at]);
                continue;
            }
            double s = y0[at];
            for (int k = 0; k < in; ++k)
                s += static_cast<double>(x[static_cast<std::size_t>(r) * in + k]) *
                     w[static_cast<std::size_t>(c) * in + k];
            ASSERT_NEAR(y[at], s, 1e-4 * (1.0 + std::fabs(s))) << r << "," << c;
        }
}

INSTANTIATE_TEST_SUITE_P(Types, Gemm16, ::testing::Values(kernels::Dt::BF16, kernels::Dt::F16),
                         [](const auto& info) { return info.param == kernels::Dt::BF16 ? "bf16" : "f16"; });

#ifdef SNAPDOC_CUDA_EMU
TEST(Gemm16Backend, Bf16ModelPrefillIssuesOnlyBf16GemmsWithF32Compute) {
    SNAPDOC_REQUIRE_CUDA();
    testing::TinyModelSpec spec;  // dim 64, 4 heads, 2 KV heads
    spec.seed = 64;
    auto tiny = load_tiny(spec, DType::BF16);
    auto gpu = make_cuda_backend(*tiny->model);
    const auto before = cuda_emu::cublas_stats();
    const auto logits = prefill_logits(*gpu, random_ids(40, spec.vocab_size, 65), 40);
    const auto after = cuda_emu::cublas_stats();
    const int64_t gemms = after.gemms - before.gemms;
    // Per layer QKV, output, gate/up, down; then the logits of every row.
    EXPECT_GE(gemms, 4 * spec.n_layers);
    EXPECT_EQ(after.bf16_inputs - before.bf16_inputs, gemms);
    EXPECT_EQ(after.compute_32f - before.compute_32f, gemms);
    EXPECT_EQ(logits.size(), static_cast<std::size_t>(40) * spec.vocab_size);
}
#endif

}  // namespace
}  // namespace snapdoc
