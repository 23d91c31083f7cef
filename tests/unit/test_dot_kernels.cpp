// The float-weight decode dots (dot_row for F32, F16, BF16) against a double-precision dot of the
// same rounded weights, at lengths that end inside each of the kernels' steps (the 512-bit loop's
// 64, the 256-bit loops' 16 and 8, the scalar tail).
#include "engine/runtime/cpu/dot_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc {
namespace {

TEST(DotRow, FloatWeightTypesMatchADoubleDotAtEveryLengthBoundary) {
    std::mt19937 gen(5);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (int64_t n : {1, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 200, 2048, 2048 + 57}) {
        std::vector<float> w(n), x(n);
        for (auto& v : w) v = nd(gen);
        for (auto& v : x) v = nd(gen);
        std::vector<uint16_t> h(n), b(n);
        double want_f32 = 0, want_f16 = 0, want_bf16 = 0, magnitude = 0;
        for (int64_t i = 0; i < n; ++i) {
            h[i] = f32_to_f16(w[i]);
            b[i] = f32_to_bf16(w[i]);
            want_f32 += double(w[i]) * x[i];
            want_f16 += double(f16_to_f32(h[i])) * x[i];
            want_bf16 += double(bf16_to_f32(b[i])) * x[i];
            magnitude += std::fabs(double(w[i]) * x[i]);
        }
        const double tol = 1e-6 * magnitude + 1e-6;
        EXPECT_NEAR(cpu::dot_row(DType::F32, w.data(), x.data(), n), want_f32, tol) << "F32, n " << n;
        EXPECT_NEAR(cpu::dot_row(DType::F16, h.data(), x.data(), n), want_f16, tol) << "F16, n " << n;
        EXPECT_NEAR(cpu::dot_row(DType::BF16, b.data(), x.data(), n), want_bf16, tol) << "BF16, n " << n;
    }
}

}  // namespace
}  // namespace snapdoc
