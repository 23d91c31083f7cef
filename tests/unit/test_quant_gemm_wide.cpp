// The 16-bit activation GEMM (quant_gemm_wide.h): the quantizer's rounding bound, scale, sums and
// NaN blocks (quant_activation_wide.h); the portable reference and the AVX2 kernel against the exact
// product within the 16-bit rounding, against each other within float summation, on every block
// type with odd row counts and partial tiles; the i32 bounds at the extreme levels (every K-quant
// level and scale at its maximum, activations at ±32767); and MatMul's choice of it at the AVX2
// level (SNAPDOC_WIDE_ACT, two planes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/quant/block_formats.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/quant_activation_wide.h"
#include "engine/runtime/cpu/quant_gemm.h"
#include "engine/runtime/cpu/quant_gemm_wide.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "tests/support/random_blocks.h"

namespace snapdoc {
namespace {

using cpu::KernelLevel;
using cpu::WideFormat;

constexpr DType kGemmTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL,
                                DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K};

std::vector<KernelLevel> wide_levels() {
    std::vector<KernelLevel> out{KernelLevel::Portable};
    if (cpu::quant_gemm_wide_available(KernelLevel::Avx2)) out.push_back(KernelLevel::Avx2);
    return out;
}

std::vector<float> normal(int n, unsigned seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = nd(gen);
    return v;
}

int block_of(WideFormat f) {
    return f == WideFormat::Blocks32 ? 32 : 256;
}

// The levels, scale and sums of block k of a quantized row.
struct BlockView {
    const int16_t* q;
    float d;
};
BlockView block(WideFormat f, const std::vector<uint8_t>& row, int k) {
    if (f == WideFormat::Blocks32) {
        const auto* b = reinterpret_cast<const cpu::WideAct32*>(row.data()) + k;
        return {b->q, b->d};
    }
    const auto* b = reinterpret_cast<const cpu::WideAct256*>(row.data()) + k;
    return {b->q, b->d};
}

std::vector<uint8_t> quantized(WideFormat f, const std::vector<float>& x) {
    std::vector<uint8_t> row(cpu::wide_act_row_bytes(f, static_cast<int64_t>(x.size())));
    cpu::quantize_activation_wide(f, x.data(), row.data(), static_cast<int64_t>(x.size()));
    return row;
}

TEST(WideActivation, IsWithinHalfAStepOfAbsmaxOver32767) {
    for (WideFormat f : {WideFormat::Blocks32, WideFormat::Blocks256}) {
        std::vector<float> x = normal(2048, 7);
        for (std::size_t i = 0; i < x.size(); i += 41) x[i] *= 50.0f;  // outliers
        for (int i = 256; i < 512; ++i) x[i] = 0.0f;                    // a zero block
        const auto row = quantized(f, x);
        const int bs = block_of(f);
        for (int k = 0; k < 2048 / bs; ++k) {
            const BlockView b = block(f, row, k);
            float amax = 0.0f;
            for (int i = 0; i < bs; ++i) amax = std::max(amax, std::fabs(x[k * bs + i]));
            ASSERT_EQ(b.d, amax / 32767.0f) << k;
            int top = 0;
            for (int i = 0; i < bs; ++i) {
                const double err = std::fabs(static_cast<double>(x[k * bs + i]) - static_cast<double>(b.d) * b.q[i]);
                ASSERT_LE(err, 0.5 * b.d * (1 + 1e-9)) << "block " << k << " value " << i;
                ASSERT_LE(std::abs(b.q[i]), 32767);
                top = std::max(top, std::abs(int{b.q[i]}));
            }
            if (amax > 0.0f) EXPECT_EQ(top, 32767) << k;
            else EXPECT_EQ(top, 0) << k;
        }
    }
}

TEST(WideActivation, TheSimdQuantizerWritesThePortableBytes) {
    std::vector<float> x = normal(4096, 9);
    for (std::size_t i = 0; i < x.size(); i += 29) x[i] *= 100.0f;
    for (int i = 512; i < 768; ++i) x[i] = 0.0f;
    for (int i = 768; i < 1024; ++i) x[i] = static_cast<float>(i - 900) + 0.5f;  // halfway at d = 1 (amax 32767 below)
    x[1000] = 32767.0f;
    x[2000] = std::numeric_limits<float>::quiet_NaN();
    x[3000] = -std::numeric_limits<float>::infinity();
    for (WideFormat f : {WideFormat::Blocks32, WideFormat::Blocks256}) {
        std::vector<uint8_t> simd(cpu::wide_act_row_bytes(f, 4096)), portable(simd.size());
        cpu::quantize_activation_wide(f, x.data(), simd.data(), 4096);
        cpu::quantize_activation_wide_portable(f, x.data(), portable.data(), 4096);
        // Bytes, NaN included (padding is written by neither; both buffers start zeroed).
        EXPECT_EQ(simd, portable) << (f == WideFormat::Blocks32 ? "Blocks32" : "Blocks256");
    }
}

TEST(WideActivation, RoundsHalfwayToEvenAndKeepsTheSums) {
    // amax 32767 makes d exactly 1, so x = k + 0.5 lies exactly halfway.
    std::vector<float> x(256, 0.0f);
    x[0] = 32767.0f;
    x[1] = 2.5f;
    x[2] = -3.5f;
    x[3] = 4.5f;
    x[40] = -7.25f;
    for (WideFormat f : {WideFormat::Blocks32, WideFormat::Blocks256}) {
        const auto row = quantized(f, x);
        const BlockView b = block(f, row, 0);
        ASSERT_EQ(b.d, 1.0f);
        EXPECT_EQ(b.q[1], 2);
        EXPECT_EQ(b.q[2], -4);
        EXPECT_EQ(b.q[3], 4);
        if (f == WideFormat::Blocks32) {
            const auto* b32 = reinterpret_cast<const cpu::WideAct32*>(row.data());
            EXPECT_EQ(b32[0].d_sum, 32767.0f + 2 - 4 + 4);
        } else {
            const auto* b256 = reinterpret_cast<const cpu::WideAct256*>(row.data());
            EXPECT_EQ(b256[0].sums16[0], 32767.0f + 2 - 4 + 4);
            EXPECT_EQ(b256[0].sums16[2], -7.0f);
            EXPECT_EQ(b256[0].sums16[1], 0.0f);
        }
    }
}

TEST(WideActivation, ANonFiniteBlockIsNaNAndLeavesItsNeighbours) {
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        for (WideFormat f : {WideFormat::Blocks32, WideFormat::Blocks256}) {
            std::vector<float> x = normal(512, 3);
            x[5] = bad;
            const auto row = quantized(f, x);
            const BlockView b0 = block(f, row, 0), b1 = block(f, row, 1);
            EXPECT_TRUE(std::isnan(b0.d));
            for (int i = 0; i < block_of(f); ++i) ASSERT_EQ(b0.q[i], 0);
            EXPECT_TRUE(std::isfinite(b1.d));
            if (f == WideFormat::Blocks32) {
                EXPECT_TRUE(std::isnan(reinterpret_cast<const cpu::WideAct32*>(row.data())->d_sum));
            } else {
                for (float s : reinterpret_cast<const cpu::WideAct256*>(row.data())->sums16) EXPECT_TRUE(std::isnan(s));
            }
        }
    }
}

struct Problem {
    DType t;
    int rows, in, n;
    std::vector<uint8_t> w;  // rows × row_bytes
    std::vector<float> x;    // n × in
    std::vector<uint8_t> act;
    std::size_t row_bytes() const { return dtype_row_bytes(t, in); }
    std::size_t act_bytes() const { return cpu::wide_act_row_bytes(cpu::wide_format(t), in); }
    void quantize() {
        act.assign(act_bytes() * n, 0);
        for (int i = 0; i < n; ++i)
            cpu::quantize_activation_wide(cpu::wide_format(t), x.data() + i * in, act.data() + i * act_bytes(), in);
    }
};

Problem make_problem(DType t, int rows, int in, int n, unsigned seed, bool random_bytes) {
    Problem p{t, rows, in, n, {}, normal(n * in, seed + 50), {}};
    for (int i = 0; i < n * in; i += 37) p.x[i] *= 30.0f;  // activation outliers
    if (random_bytes) {
        std::mt19937 gen(seed);
        p.w = testing::random_blocks(t, rows * in / dtype_block_size(t), gen, {0.01f, -0.02f, 0.003f, 0.0f});
    } else {
        const auto wf = normal(rows * in, seed, 0.05f);
        p.w.resize(p.row_bytes() * rows);
        for (int r = 0; r < rows; ++r) quantize_row(t, wf.data() + r * in, p.w.data() + r * p.row_bytes(), in);
    }
    p.quantize();
    return p;
}

std::vector<float> run(const Problem& p, KernelLevel level) {
    std::vector<float> y(static_cast<std::size_t>(p.n) * p.rows, NAN);
    cpu::quant_gemm_wide(level, p.t, p.w.data(), p.row_bytes(), p.rows, p.in, p.act.data(), p.n, y.data(), p.rows);
    return y;
}

// The exact product, the 16-bit rounding bound Σ|w|·(half a step), and Σ|w·x| (for float-sum bounds).
struct Expected {
    double exact, rounding, magnitude;
};

Expected expected(const Problem& p, int r, int i) {
    std::vector<float> w(p.in);
    dequantize_row(p.t, p.w.data() + r * p.row_bytes(), w.data(), p.in);
    const float* x = p.x.data() + i * p.in;
    const int bs = block_of(cpu::wide_format(p.t));
    Expected e{0.0, 0.0, 0.0};
    for (int b = 0; b < p.in / bs; ++b) {
        float amax = 0.0f;
        for (int k = b * bs; k < (b + 1) * bs; ++k) amax = std::max(amax, std::fabs(x[k]));
        for (int k = b * bs; k < (b + 1) * bs; ++k) {
            e.exact += static_cast<double>(w[k]) * x[k];
            e.rounding += std::fabs(w[k]) * (amax / 32767.0 / 2.0);
            e.magnitude += std::fabs(static_cast<double>(w[k]) * x[k]);
        }
    }
    return e;
}

class QuantGemmWide : public ::testing::TestWithParam<DType> {};

TEST_P(QuantGemmWide, MatchesTheExactProductWithin16BitRounding) {
    const DType t = GetParam();
    // 37 weight rows (a lone last row in the 2-row tiles), 11 activation rows (a 3-row last tile).
    const Problem p = make_problem(t, 37, 512, 11, 2, false);
    for (KernelLevel level : wide_levels()) {
        const auto y = run(p, level);
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r) {
                const Expected e = expected(p, r, i);
                // The float sums add at most a few units of 2^-24 of Σ|w·x| per block.
                const double bound = e.rounding * 1.001 + 4e-6 * e.magnitude + 1e-7;
                ASSERT_NEAR(y[i * p.rows + r], e.exact, bound)
                    << dtype_name(t) << " " << cpu::kernel_level_name(level) << " row " << r << " act " << i;
            }
    }
}

TEST_P(QuantGemmWide, IsAbout256TimesCloserThanThe8BitGemm) {
    // The point of the format: on the same problem the 16-bit GEMM's worst error is a small fraction
    // of the 8-bit one's (which rounds to absmax/127 steps).
    const DType t = GetParam();
    const Problem p = make_problem(t, 16, 1024, 8, 4, false);
    const auto y16 = run(p, KernelLevel::Portable);
    std::vector<uint8_t> act8(cpu::act_row_bytes(cpu::act_format(t), p.in) * p.n);
    for (int i = 0; i < p.n; ++i)
        cpu::quantize_activation(cpu::act_format(t), p.x.data() + i * p.in,
                                 act8.data() + i * cpu::act_row_bytes(cpu::act_format(t), p.in), p.in);
    std::vector<float> y8(y16.size());
    cpu::quant_gemm(KernelLevel::Portable, t, p.w.data(), p.row_bytes(), p.rows, p.in, act8.data(), p.n, y8.data(),
                    p.rows);
    double err16 = 0, err8 = 0;
    for (int i = 0; i < p.n; ++i)
        for (int r = 0; r < p.rows; ++r) {
            const double exact = expected(p, r, i).exact;
            err16 = std::max(err16, std::fabs(y16[i * p.rows + r] - exact));
            err8 = std::max(err8, std::fabs(y8[i * p.rows + r] - exact));
        }
    EXPECT_LT(err16, err8 / 30) << dtype_name(t) << ": 16-bit " << err16 << ", 8-bit " << err8;
}

TEST_P(QuantGemmWide, Avx2EqualsThePortableReferenceWithinFloatSummation) {
    if (!cpu::quant_gemm_wide_available(KernelLevel::Avx2)) GTEST_SKIP() << "no AVX2 here";
    const DType t = GetParam();
    // Random level and scale bits (negative scales, Q8_0's −128, Q6_K's 63) past one unpacked chunk
    // (64 rows at most), activation rows in every tile shape (1..4 rows in the last tile).
    for (int n : {1, 2, 3, 4, 17, 18}) {
        const Problem p = make_problem(t, 70, 1024, n, 10 + n, true);
        const auto ya = run(p, KernelLevel::Avx2), yp = run(p, KernelLevel::Portable);
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r) {
                const double mag = expected(p, r, i).magnitude;
                ASSERT_NEAR(ya[i * p.rows + r], yp[i * p.rows + r], 2e-6 * mag + 1e-7)
                    << dtype_name(t) << " n " << n << " row " << r << " act " << i;
            }
    }
}

TEST_P(QuantGemmWide, Avx2AddsItsActivationSpansOnLongRows) {
    // 4352 values: the AVX2 kernel walks rows longer than 2048 values in spans (2048, 2048, 256),
    // the later ones added to y; 6 activation rows (a full and a 2-row tile).
    if (!cpu::quant_gemm_wide_available(KernelLevel::Avx2)) GTEST_SKIP() << "no AVX2 here";
    const DType t = GetParam();
    const Problem p = make_problem(t, 9, 4352, 6, 12, false);
    const auto ya = run(p, KernelLevel::Avx2), yp = run(p, KernelLevel::Portable);
    for (int i = 0; i < p.n; ++i)
        for (int r = 0; r < p.rows; ++r) {
            const Expected e = expected(p, r, i);
            ASSERT_NEAR(ya[i * p.rows + r], yp[i * p.rows + r], 2e-6 * e.magnitude + 1e-7)
                << dtype_name(t) << " row " << r << " act " << i;
            ASSERT_NEAR(ya[i * p.rows + r], e.exact, e.rounding * 1.001 + 4e-6 * e.magnitude + 1e-7)
                << dtype_name(t) << " row " << r << " act " << i;
        }
}

// A weight row of nb blocks with every level bit set (each type's largest level, and for the
// K-quants the largest 6-bit scales and mins; Q6_K's scales −128) and the f16 scales set to 2^-10.
std::vector<uint8_t> extreme_blocks(DType t, int nb) {
    const int bytes = dtype_block_bytes(t);
    std::vector<uint8_t> w(static_cast<std::size_t>(bytes) * nb, 0xFF);
    for (int b = 0; b < nb; ++b) {
        uint8_t* blk = w.data() + static_cast<std::size_t>(b) * bytes;
        if (t == DType::Q6_K) std::memset(blk + quant::q6k::kScales, 0x80, 16);
        const uint16_t h = f32_to_f16(1.0f / 1024);
        for (int off : testing::f16_scale_offsets(t)) std::memcpy(blk + off, &h, 2);
    }
    return w;
}

TEST_P(QuantGemmWide, NoI32LaneOverflowsAtTheExtremeLevels) {
    // Activations ±1 quantize to ±32767, the weight levels and scales to their largest magnitudes:
    // every product of a lane has the same sign and the largest size, the case the flush interval
    // (quant_gemm_kernels.h) is sized for. The portable reference sums in int64.
    if (!cpu::quant_gemm_wide_available(KernelLevel::Avx2)) GTEST_SKIP() << "no AVX2 here";
    const DType t = GetParam();
    const int in = 1024, rows = 3, n = 5;
    Problem p{t, rows, in, n, extreme_blocks(t, rows * in / dtype_block_size(t)), {}, {}};
    p.x.assign(static_cast<std::size_t>(n) * in, 1.0f);
    for (int i = in; i < 2 * in; ++i) p.x[i] = -1.0f;  // row 1 all −32767
    for (int i = 2 * in; i < 3 * in; ++i) p.x[i] = (i % 2) ? 1.0f : -1.0f;
    p.quantize();
    const auto ya = run(p, KernelLevel::Avx2), yp = run(p, KernelLevel::Portable);
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < rows; ++r) {
            const double mag = expected(p, r, i).magnitude;
            ASSERT_NEAR(ya[i * rows + r], yp[i * rows + r], 2e-6 * mag + 1e-7)
                << dtype_name(t) << " row " << r << " act " << i;
            ASSERT_NEAR(yp[i * rows + r], expected(p, r, i).exact, 1e-5 * mag + 1e-7);
        }
}

TEST_P(QuantGemmWide, ANonFiniteActivationMakesItsRowNaNOnly) {
    const DType t = GetParam();
    Problem p = make_problem(t, 6, 512, 6, 5, false);
    p.x[2 * p.in + 7] = std::numeric_limits<float>::infinity();
    p.x[4 * p.in + 300] = std::numeric_limits<float>::quiet_NaN();
    p.quantize();
    for (KernelLevel level : wide_levels()) {
        const auto y = run(p, level);
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r)
                EXPECT_EQ(std::isnan(y[i * p.rows + r]), i == 2 || i == 4)
                    << dtype_name(t) << " " << cpu::kernel_level_name(level) << " row " << r << " act " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(AllGemmTypes, QuantGemmWide, ::testing::ValuesIn(kGemmTypes),
                         [](const ::testing::TestParamInfo<DType>& i) { return std::string(dtype_name(i.param)); });

// Sets an environment variable for one scope.
class Env {
public:
    Env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
    ~Env() { unsetenv(name_); }
    Env(const Env&) = delete;
    Env& operator=(const Env&) = delete;

private:
    const char* name_;
};

TEST(QuantGemmWideMatMul, TheAvx2LevelTakesItWithTwoPlanesOrWhenAskedAndNotOtherwise) {
    if (!cpu::quant_gemm_wide_available(KernelLevel::Avx2)) GTEST_SKIP() << "no AVX2 here";
    const Problem p = make_problem(DType::Q4_K, 96, 1024, 40, 6, false);
    TensorView w;
    w.name = "w";
    w.dtype = p.t;
    w.shape = {p.rows, p.in};
    w.data = p.w.data();
    w.nbytes = p.w.size();
    const auto wide = run(p, KernelLevel::Avx2);
    ThreadPool pool(2);
    Env level("SNAPDOC_CPU_KERNELS", "avx2");
    const auto matmul = [&](bool precise) {
        std::vector<float> y(wide.size());
        cpu::MatMul mm(pool, false, precise);
        mm(w, p.x.data(), p.n, y.data());
        return y;
    };
    {
        Env on("SNAPDOC_WIDE_ACT", "1");
        EXPECT_EQ(matmul(false), wide);  // bit for bit: the same per-output sums, split over threads
    }
    EXPECT_EQ(matmul(true), wide);  // two planes: one 16-bit pass
    EXPECT_NE(matmul(false), wide);  // the one-plane default: 8 bits
    {
        Env off("SNAPDOC_WIDE_ACT", "0");
        EXPECT_NE(matmul(true), wide);
    }
}

}  // namespace
}  // namespace snapdoc
