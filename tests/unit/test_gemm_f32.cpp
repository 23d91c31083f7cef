// gemm_f32 (our prefill GEMM) against a double-precision reference: odd shapes that exercise every
// row tail (1..17 rows against the 14-row tiles), column tails (not multiples of 16/32), K blocks
// (deep K crosses the 256-deep packing blocks, wide n the 256-wide ones) and leading dimensions
// wider than the matrix.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/common/error.h"
#include "engine/runtime/cpu/gemm_f32.h"

namespace snapdoc::cpu {
namespace {

struct Problem {
    int64_t m, n, k, lda, ldb, ldc;
    std::vector<float> a, b, c;
    Problem(int64_t m_, int64_t n_, int64_t k_, int64_t pad, uint32_t seed)
        : m(m_), n(n_), k(k_), lda(k_ + pad), ldb(k_ + 2 * pad), ldc(n_ + pad) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> dist(-1.f, 1.f);
        a.resize(static_cast<std::size_t>(m * lda));
        b.resize(static_cast<std::size_t>(n * ldb));
        c.assign(static_cast<std::size_t>(m * ldc), 7.f);  // 7: C is overwritten, not accumulated into
        for (auto& x : a) x = dist(rng);
        for (auto& x : b) x = dist(rng);
    }
};

// Every element within the worst-case f32 dot-product bound k·eps·Σ|a·b| of the exact value (any
// summation order meets it; an indexing or tail bug misses it by O(1)); padding past n untouched.
void expect_matches_reference(const Problem& p, const char* what) {
    for (int64_t i = 0; i < p.m; ++i) {
        for (int64_t j = 0; j < p.n; ++j) {
            double exact = 0, magnitude = 0;
            for (int64_t q = 0; q < p.k; ++q) {
                const double prod = double(p.a[i * p.lda + q]) * p.b[j * p.ldb + q];
                exact += prod;
                magnitude += std::fabs(prod);
            }
            const double tol = 2.0 * (p.k + 1) * FLT_EPSILON * magnitude + 1e-30;
            ASSERT_NEAR(p.c[i * p.ldc + j], exact, tol)
                << what << " m=" << p.m << " n=" << p.n << " k=" << p.k << " at (" << i << "," << j << ")";
        }
        for (int64_t j = p.n; j < p.ldc; ++j)
            ASSERT_EQ(p.c[i * p.ldc + j], 7.f) << what << ": wrote past n in row " << i;
    }
}

std::vector<GemmIsa> isas() {
    std::vector<GemmIsa> out{GemmIsa::Portable};
    if (gemm_f32_has_avx512()) out.push_back(GemmIsa::Avx512);
    return out;
}

const char* name(GemmIsa isa) {
    return isa == GemmIsa::Avx512 ? "avx512" : "portable";
}

TEST(GemmF32, OddShapesMatchDoubleReference) {
    uint32_t seed = 1;
    for (GemmIsa isa : isas())
        for (int64_t m = 1; m <= 17; ++m)
            for (int64_t n : {1, 15, 16, 17, 31, 33, 70})
                for (int64_t k : {1, 7, 100}) {
                    Problem p(m, n, k, m % 3, seed++);
                    gemm_f32_nt(p.m, p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, p.c.data(), p.ldc, isa);
                    expect_matches_reference(p, name(isa));
                }
}

TEST(GemmF32, DeepKCrossesPackingBlocks) {
    for (GemmIsa isa : isas())
        for (int64_t k : {255, 256, 257, 600, 2049}) {
            Problem p(29, 45, k, 5, static_cast<uint32_t>(k));
            gemm_f32_nt(p.m, p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, p.c.data(), p.ldc, isa);
            expect_matches_reference(p, name(isa));
        }
}

TEST(GemmF32, WideAndDeepCrossesColumnAndDepthBlocks) {
    for (GemmIsa isa : isas()) {
        Problem p(40, 600, 520, 0, 99);  // 600 columns: three 256-wide blocks of B, the last partial
        gemm_f32_nt(p.m, p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, p.c.data(), p.ldc, isa);
        expect_matches_reference(p, name(isa));
    }
}

TEST(GemmF32, Avx512AgreesWithPortable) {
    if (!gemm_f32_has_avx512()) GTEST_SKIP() << "this CPU has no AVX-512F";
    Problem p(37, 99, 531, 3, 5);
    std::vector<float> portable = p.c;
    gemm_f32_nt(p.m, p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, portable.data(), p.ldc,
                GemmIsa::Portable);
    gemm_f32_nt(p.m, p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, p.c.data(), p.ldc, GemmIsa::Avx512);
    double worst = 0;
    for (std::size_t i = 0; i < p.c.size(); ++i)
        worst = std::max(worst, double(std::fabs(p.c[i] - portable[i])));
    EXPECT_LT(worst, 1e-3);  // both f32 sums of ~531 products of magnitude <= 1: they differ by rounding only
    expect_matches_reference(p, "avx512");
}

TEST(GemmF32, ZeroDepthGivesZeros) {
    for (GemmIsa isa : isas()) {
        std::vector<float> c(6, 7.f);
        float dummy = 0;
        gemm_f32_nt(2, 3, 0, &dummy, 0, &dummy, 0, c.data(), 3, isa);
        for (float v : c) EXPECT_EQ(v, 0.f) << name(isa);
    }
}

TEST(GemmF32, Avx512OnACpuWithoutItIsAnError) {
    if (gemm_f32_has_avx512()) GTEST_SKIP() << "this CPU has AVX-512F";
    float a = 1, b = 1, c = 0;
    EXPECT_THROW(gemm_f32_nt(1, 1, 1, &a, 1, &b, 1, &c, 1, GemmIsa::Avx512), Error);
}

}  // namespace
}  // namespace snapdoc::cpu
