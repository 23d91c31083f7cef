// The two 8-bit activation planes (quant_activation_residual.h): the residual the first plane leaves,
// the second plane's reconstruction error, and MatMul's products on both planes (decode dots and the
// integer GEMM at every kernel level) against the exact product, far inside one plane's rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/dtype.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_activation_residual.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc {
namespace {

using cpu::ActFormat;

std::vector<float> activations(int n, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = nd(gen);
    for (int i = 0; i < n; i += 53) v[i] *= 40.0f;  // outliers: one plane's step is coarse around them
    return v;
}

// The scale and level of value v of a quantized row, whatever the format's layout.
struct Level {
    float d;
    int q;
};
Level level_at(ActFormat f, const std::vector<uint8_t>& row, int v) {
    switch (f) {
        case ActFormat::Blocks32: {
            const auto* b = reinterpret_cast<const cpu::ActBlock32*>(row.data()) + v / 32;
            return {b->d, b->q[v % 32]};
        }
        case ActFormat::Blocks256: {
            const auto* b = reinterpret_cast<const cpu::ActBlock256*>(row.data()) + v / 256;
            return {b->d, b->q[v % 256]};
        }
        case ActFormat::Blocks256Nibbles: {
            const auto* b = reinterpret_cast<const cpu::ActBlock256Nibbles*>(row.data()) + v / 256;
            const int e = v % 256, part = (e % 128) / 32;  // [0..31, 64..95, 32..63, 96..127] per 128
            const int stored = 128 * (e / 128) + 32 * ((part >> 1) | ((part & 1) << 1)) + e % 32;
            return {b->d, b->q[stored]};
        }
    }
    return {0.0f, 0};
}

std::vector<uint8_t> quantize(ActFormat f, const float* x, int n) {
    // Over-aligned storage is not needed here: only scalar fields are read.
    std::vector<uint8_t> row(cpu::act_row_bytes(f, n) + 64);
    cpu::quantize_activation(f, x, row.data(), n);
    return row;
}

TEST(ActivationPlanes, TheResidualIsWhatTheFirstPlaneLeftAndTheSecondPlaneHoldsItToAStep) {
    const int n = 1024;
    const auto x = activations(n, 1);
    for (ActFormat f : {ActFormat::Blocks32, ActFormat::Blocks256, ActFormat::Blocks256Nibbles}) {
        const auto first = quantize(f, x.data(), n);
        std::vector<float> r(n);
        cpu::activation_residual(f, x.data(), first.data(), r.data(), n);
        const auto second = quantize(f, r.data(), n);
        for (int v = 0; v < n; ++v) {
            const Level a = level_at(f, first, v), b = level_at(f, second, v);
            // The residual is x − d·q, at most half a first-plane step (rounding to nearest).
            EXPECT_NEAR(r[v], static_cast<double>(x[v]) - static_cast<double>(a.d) * a.q, 1e-7 * std::fabs(x[v]))
                << "format " << static_cast<int>(f) << " value " << v;
            EXPECT_LE(std::fabs(r[v]), 0.5f * a.d * 1.0001f) << "value " << v;
            // Its own step is at most 1/254 of the first's, and both planes together land within half of it.
            EXPECT_LE(b.d, a.d / 254.0f * 1.0001f) << "value " << v;
            const double both = static_cast<double>(a.d) * a.q + static_cast<double>(b.d) * b.q;
            EXPECT_NEAR(both, x[v], 0.5 * b.d * 1.0001 + 1e-7 * std::fabs(x[v])) << "value " << v;
        }
    }
}

TEST(ActivationPlanes, ANonFiniteBlockStaysNaNInTheSecondPlane) {
    auto x = activations(512, 2);
    x[300] = std::numeric_limits<float>::infinity();
    const auto first = quantize(ActFormat::Blocks256, x.data(), 512);
    std::vector<float> r(512);
    cpu::activation_residual(ActFormat::Blocks256, x.data(), first.data(), r.data(), 512);
    const auto second = quantize(ActFormat::Blocks256, r.data(), 512);
    EXPECT_TRUE(std::isfinite(level_at(ActFormat::Blocks256, second, 0).d));
    EXPECT_TRUE(std::isnan(level_at(ActFormat::Blocks256, second, 300).d));
}

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
    ~ScopedEnv() { unsetenv(name_); }

private:
    const char* name_;
};

// MatMul's products on both planes against the exact product of the dequantized weights and the f32
// activations: within 1/100 of what one plane's rounding allows (Σ|w|·half a step, which one plane
// reaches a good part of), through the decode dots (few rows) and the integer GEMM at every level;
// with SNAPDOC_ACT_PLANES=1 one plane's error comes back, so the bound is one the single plane misses.
TEST(ActivationPlanes, MatMulIsFarInsideOnePlanesRoundingAtEveryLevel) {
    const int out = 40, in = 512;
    ThreadPool pool(2);
    for (DType t : {DType::Q4_0, DType::Q8_0, DType::Q4_1, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::Q3_K}) {
        std::mt19937 gen(7);
        std::normal_distribution<float> nd(0.0f, 0.05f);
        std::vector<float> wf(out * in);
        for (auto& v : wf) v = nd(gen);
        const std::size_t row_bytes = dtype_row_bytes(t, in);
        std::vector<uint8_t> wq(row_bytes * out);
        for (int r = 0; r < out; ++r) quantize_row(t, wf.data() + r * in, wq.data() + r * row_bytes, in);
        std::vector<float> wd(out * in);
        for (int r = 0; r < out; ++r) dequantize_row(t, wq.data() + r * row_bytes, wd.data() + r * in, in);
        TensorView w;
        w.name = "w";
        w.dtype = t;
        w.shape = {out, in};
        w.data = wq.data();
        w.nbytes = wq.size();
        const int bs = cpu::act_format(t) == ActFormat::Blocks32 ? 32 : 256;
        for (int n : {3, cpu::kIntegerGemmMinRows - 2, cpu::kIntegerGemmMinRows + 5}) {
            const auto x = activations(n * in, 10u + n);
            // Exact products and one plane's bound.
            std::vector<double> exact(static_cast<std::size_t>(n) * out), bound(exact.size());
            for (int i = 0; i < n; ++i)
                for (int r = 0; r < out; ++r) {
                    double e = 0, b = 0;
                    for (int k0 = 0; k0 < in; k0 += bs) {
                        float amax = 0;
                        for (int k = k0; k < k0 + bs; ++k) amax = std::max(amax, std::fabs(x[i * in + k]));
                        for (int k = k0; k < k0 + bs; ++k) {
                            e += static_cast<double>(wd[r * in + k]) * x[i * in + k];
                            b += std::fabs(wd[r * in + k]) * amax / 127.0 / 2.0;
                        }
                    }
                    exact[i * out + r] = e;
                    bound[i * out + r] = b;
                }
            for (cpu::KernelLevel level : cpu::kAllKernelLevels) {
                if (!cpu::kernel_level_available(level)) continue;
                ScopedEnv forced("SNAPDOC_CPU_KERNELS", cpu::kernel_level_name(level));
                double worst_two = 0, worst_one = 0;  // max |error| / one plane's bound
                for (int planes : {2, 1}) {
                    ScopedEnv env("SNAPDOC_ACT_PLANES", planes == 1 ? "1" : "2");
                    cpu::MatMul mm(pool);
                    std::vector<float> y(exact.size());
                    mm(w, x.data(), n, y.data());
                    for (std::size_t k = 0; k < y.size(); ++k) {
                        const double e = std::fabs(y[k] - exact[k]) / bound[k];
                        (planes == 2 ? worst_two : worst_one) = std::max(planes == 2 ? worst_two : worst_one, e);
                    }
                }
                EXPECT_LT(worst_two, 0.01) << dtype_name(t) << " " << n << " rows " << cpu::kernel_level_name(level);
                EXPECT_GT(worst_one, 0.05) << dtype_name(t) << " " << n << " rows " << cpu::kernel_level_name(level)
                                           << ": SNAPDOC_ACT_PLANES=1 should round to one plane";
            }
        }
    }
}

// The precision is chosen per matmul role (MatMul::set_precise_roles, SNAPDOC_PRECISE_ROLES): a
// precise role's product is bit for bit --precise-activations' one, any other role's the one-plane
// default's, in the decode dots and the integer GEMM, at every kernel level this CPU runs.
TEST(ActivationPlanes, EachMatMulRoleTakesItsOwnPrecision) {
    const int out = 48, in = 512;
    ThreadPool pool(2);
    std::mt19937 gen(11);
    std::normal_distribution<float> nd(0.0f, 0.05f);
    std::vector<float> wf(out * in);
    for (auto& v : wf) v = nd(gen);
    for (DType t : {DType::Q4_K, DType::Q8_0}) {
        const std::size_t row_bytes = dtype_row_bytes(t, in);
        std::vector<uint8_t> wq(row_bytes * out);
        for (int r = 0; r < out; ++r) quantize_row(t, wf.data() + r * in, wq.data() + r * row_bytes, in);
        TensorView w;
        w.name = "w";
        w.dtype = t;
        w.shape = {out, in};
        w.data = wq.data();
        w.nbytes = wq.size();
        for (cpu::KernelLevel level : cpu::kAllKernelLevels) {
            if (!cpu::kernel_level_available(level)) continue;
            ScopedEnv forced("SNAPDOC_CPU_KERNELS", cpu::kernel_level_name(level));
            for (int n : {3, cpu::kIntegerGemmMinRows + 5}) {
                const auto x = activations(n * in, 20u + n);
                const auto product = [&](cpu::MatMul& mm, cpu::MatMulRole role) {
                    std::vector<float> y(static_cast<std::size_t>(n) * out);
                    mm(w, x.data(), n, y.data(), role);
                    return y;
                };
                cpu::MatMul one_plane(pool), precise(pool, false, true), mixed(pool);
                ASSERT_EQ(one_plane.precise_roles(), cpu::kDefaultPreciseRoles);
                ASSERT_EQ(precise.precise_roles(), cpu::kAllMatMulRoles);
                mixed.set_precise_roles(cpu::role_bit(cpu::MatMulRole::FfnDown));
                const auto want_one = product(one_plane, cpu::MatMulRole::Other);
                const auto want_precise = product(precise, cpu::MatMulRole::Other);
                ASSERT_NE(want_one, want_precise) << "the two precisions should differ";
                const std::string what = std::string(dtype_name(t)) + " " + std::to_string(n) + " rows " +
                                         cpu::kernel_level_name(level);
                EXPECT_EQ(product(mixed, cpu::MatMulRole::FfnDown), want_precise) << what;
                EXPECT_EQ(product(mixed, cpu::MatMulRole::AttnQkv), want_one) << what;
            }
        }
    }
}

TEST(ActivationPlanes, PreciseRolesComeFromTheEnvironmentAndABadNameIsAnError) {
    ThreadPool pool(1);
    {
        ScopedEnv env("SNAPDOC_PRECISE_ROLES", "down,head");
        EXPECT_EQ(cpu::MatMul(pool).precise_roles(),
                  cpu::role_bit(cpu::MatMulRole::FfnDown) | cpu::role_bit(cpu::MatMulRole::Output));
        // --precise-activations keeps meaning every role.
        EXPECT_EQ(cpu::MatMul(pool, false, true).precise_roles(), cpu::kAllMatMulRoles);
    }
    {
        ScopedEnv env("SNAPDOC_PRECISE_ROLES", "none");
        EXPECT_EQ(cpu::MatMul(pool).precise_roles(), 0u);
    }
    {
        ScopedEnv env("SNAPDOC_PRECISE_ROLES", "qkv,ffn");
        EXPECT_THROW(cpu::MatMul{pool}, Error);
    }
}

}  // namespace
}  // namespace snapdoc
