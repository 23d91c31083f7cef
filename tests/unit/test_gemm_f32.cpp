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

// The attention tiles' calls: B stored [k, n] (V), a scale, and C accumulated into.
TEST(GemmF32, AsIsLayoutScaleAndAccumulate) {
    uint32_t seed = 500;
    for (GemmIsa isa : isas())
        for (int64_t m : {1, 13, 14, 30})
            for (int64_t n : {5, 32, 64, 300})
                for (int64_t k : {3, 64, 256, 300})
                    for (bool accumulate : {false, true}) {
                        std::mt19937 rng(seed++);
                        std::uniform_real_distribution<float> dist(-1.f, 1.f);
                        const int64_t lda = k + 1, ldb = n + 3, ldc = n + 2;
                        const float alpha = 0.125f;
                        std::vector<float> a(m * lda), b(k * ldb), c(m * ldc);
                        for (auto& x : a) x = dist(rng);
                        for (auto& x : b) x = dist(rng);
                        for (auto& x : c) x = dist(rng);
                        const std::vector<float> before = c;
                        gemm_f32(GemmB::AsIs, m, n, k, alpha, a.data(), lda, b.data(), ldb, accumulate,
                                 c.data(), ldc, isa);
                        for (int64_t i = 0; i < m; ++i)
                            for (int64_t j = 0; j < ldc; ++j) {
                                if (j >= n) {
                                    ASSERT_EQ(c[i * ldc + j], before[i * ldc + j])
                                        << name(isa) << ": wrote past n";
                                    continue;
                                }
                                double exact = accumulate ? before[i * ldc + j] : 0.0,
                                       magnitude = std::fabs(exact);
                                for (int64_t q = 0; q < k; ++q) {
                                    const double prod = double(alpha) * a[i * lda + q] * b[q * ldb + j];
                                    exact += prod;
                                    magnitude += std::fabs(prod);
                                }
                                ASSERT_NEAR(c[i * ldc + j], exact, 2.0 * (k + 2) * FLT_EPSILON * magnitude)
                                    << name(isa) << " m=" << m << " n=" << n << " k=" << k
                                    << " acc=" << accumulate;
                            }
                    }
}

TEST(GemmF32, ScaledTransposedMatchesReference) {
    for (GemmIsa isa : isas()) {
        Problem p(17, 40, 70, 1, 77);
        gemm_f32(GemmB::Transposed, p.m, p.n, p.k, 2.0f, p.a.data(), p.lda, p.b.data(), p.ldb, false,
                 p.c.data(), p.ldc, isa);
        for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) p.c[i * p.ldc + j] *= 0.5f;  // powers of two: exact
        expect_matches_reference(p, name(isa));
    }
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
