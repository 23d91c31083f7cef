// The integer prefill GEMM (quant_gemm.h) at every kernel level this CPU can run, against the
// exact product (dequantized weights · f32 activations, in double) within the 8-bit activation
// rounding, and against the portable decode dots (the same integers), on quantizer output and on
// random block bytes; the SNAPDOC_CPU_KERNELS override; MatMul's integer paths (both activation
// planes, quant_activation_residual.h) and --exact-prefill.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
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
#include "engine/runtime/cpu/quant_dot.h"
#include "engine/runtime/cpu/quant_gemm.h"
#include "engine/runtime/cpu/quant_gemm_wide.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "tests/support/quantized_activation.h"
#include "tests/support/random_blocks.h"

namespace snapdoc {
namespace {

using cpu::KernelLevel;

constexpr DType kGemmTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL,
                                DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K};

std::vector<KernelLevel> available_levels() {
    std::vector<KernelLevel> out;
    for (KernelLevel l : cpu::kAllKernelLevels)
        if (cpu::kernel_level_available(l)) out.push_back(l);
    return out;
}

std::vector<float> normal(int n, unsigned seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = nd(gen);
    return v;
}

// Sets SNAPDOC_CPU_KERNELS for one scope.
class ForcedLevel {
public:
    explicit ForcedLevel(const char* name) { setenv("SNAPDOC_CPU_KERNELS", name, 1); }
    ~ForcedLevel() { unsetenv("SNAPDOC_CPU_KERNELS"); }
};

struct Problem {
    DType t;
    int rows, in, n;
    std::vector<uint8_t> w;    // rows × row_bytes
    std::vector<float> x;      // n × in
    std::vector<uint8_t> act;  // x quantized
    std::size_t row_bytes() const { return dtype_row_bytes(t, in); }
    std::size_t act_bytes() const { return cpu::act_row_bytes(cpu::act_format(t), in); }
};

Problem make_problem(DType t, int rows, int in, int n, unsigned seed, bool random_bytes) {
    Problem p{t, rows, in, n, {}, normal(n * in, seed + 50), {}};
    if (seed % 2 == 0)
        for (int i = 0; i < n * in; i += 37) p.x[i] *= 30.0f;  // activation outliers
    if (random_bytes) {
        std::mt19937 gen(seed);
        p.w = testing::random_blocks(t, rows * in / dtype_block_size(t), gen, {0.01f, -0.02f, 0.003f, 0.0f});
    } else {
        const auto wf = normal(rows * in, seed, 0.05f);
        p.w.resize(p.row_bytes() * rows);
        for (int r = 0; r < rows; ++r) quantize_row(t, wf.data() + r * in, p.w.data() + r * p.row_bytes(), in);
    }
    p.act.resize(p.act_bytes() * n);
    for (int i = 0; i < n; ++i)
        cpu::quantize_activation(cpu::act_format(t), p.x.data() + i * in, p.act.data() + i * p.act_bytes(), in);
    return p;
}

TensorView view_of(const Problem& p) {
    TensorView w;
    w.name = "w";
    w.dtype = p.t;
    w.shape = {p.rows, p.in};
    w.data = p.w.data();
    w.nbytes = p.w.size();
    return w;
}

// Exact product and the bound the 8-bit activations allow: Σ|w|·(half an activation step).
struct Expected {
    double exact, bound;
};

Expected expected(const Problem& p, int r, int i) {
    std::vector<float> w(p.in);
    dequantize_row(p.t, p.w.data() + r * p.row_bytes(), w.data(), p.in);
    const float* x = p.x.data() + i * p.in;
    const int bs = cpu::act_format(p.t) == cpu::ActFormat::Blocks32 ? 32 : 256;
    Expected e{0.0, 0.0};
    double magnitude = 0.0;
    for (int b = 0; b < p.in / bs; ++b) {
        float amax = 0.0f;
        for (int k = b * bs; k < (b + 1) * bs; ++k) amax = std::max(amax, std::fabs(x[k]));
        for (int k = b * bs; k < (b + 1) * bs; ++k) {
            e.exact += static_cast<double>(w[k]) * x[k];
            e.bound += std::fabs(w[k]) * (amax / 127.0 / 2.0);
            magnitude += std::fabs(static_cast<double>(w[k]) * x[k]);
        }
    }
    e.bound = e.bound * 1.001 + 1e-5 * magnitude + 1e-6;
    return e;
}

std::vector<float> run(const Problem& p, KernelLevel level, const std::vector<uint8_t>* act = nullptr) {
    std::vector<float> y(static_cast<std::size_t>(p.n) * p.rows, NAN);
    cpu::quant_gemm(level, p.t, p.w.data(), p.row_bytes(), p.rows, p.in, (act ? *act : p.act).data(), p.n, y.data(),
                    p.rows);
    return y;
}

// Residual rows of x after quantizing them in `format` (quant_activation_residual.h), row i at r + i·in.
std::vector<float> residuals(cpu::ActFormat format, const float* x, const uint8_t* act, std::size_t act_stride,
                             int n, int in) {
    std::vector<float> r(static_cast<std::size_t>(n) * in);
    for (int i = 0; i < n; ++i) cpu::activation_residual(format, x + i * in, act + i * act_stride, r.data() + i * in, in);
    return r;
}

// The second activation plane of p's rows, as MatMul makes it.
std::vector<uint8_t> second_plane(const Problem& p) {
    const cpu::ActFormat f = cpu::act_format(p.t);
    const std::vector<float> r = residuals(f, p.x.data(), p.act.data(), p.act_bytes(), p.n, p.in);
    std::vector<uint8_t> out(p.act.size());
    for (int i = 0; i < p.n; ++i) cpu::quantize_activation(f, r.data() + i * p.in, out.data() + i * p.act_bytes(), p.in);
    return out;
}

// Every available level's GEMM against the portable decode dot of each (weight row, activation
// row): the same integers, summed in another order.
void expect_every_level_matches_the_decode_dots(const Problem& p) {
    for (KernelLevel level : available_levels()) {
        const auto y = run(p, level);
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r) {
                const double ref = cpu::quant_dot_portable(p.t, p.w.data() + r * p.row_bytes(),
                                                           p.act.data() + i * p.act_bytes(), p.in);
                ASSERT_NEAR(y[i * p.rows + r], ref, 1e-5 * std::fabs(ref) + 1e-4)
                    << dtype_name(p.t) << " " << cpu::kernel_level_name(level) << " row " << r << " act " << i;
            }
    }
}

class QuantGemm : public ::testing::TestWithParam<DType> {};

TEST_P(QuantGemm, EveryLevelMatchesTheExactProductWithinActivationRounding) {
    const DType t = GetParam();
    // Odd sizes: a lone weight row and partial activation tiles at the edges.
    const Problem p = make_problem(t, 37, 512, 11, 2, false);
    for (KernelLevel level : available_levels()) {
        const auto y = run(p, level);
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r) {
                const Expected e = expected(p, r, i);
                ASSERT_NEAR(y[i * p.rows + r], e.exact, e.bound)
                    << dtype_name(t) << " " << cpu::kernel_level_name(level) << " row " << r << " act " << i;
            }
    }
}

TEST_P(QuantGemm, EveryLevelMatchesTheDecodeDotsAcrossChunksAndRowGroups) {
    // More weight rows than one unpacked chunk holds (the AVX-512 level takes 16-row groups, at most
    // 4 per chunk at this row length; the others 2-row tiles in chunks of up to 64 rows), a partial
    // last group, and activation rows past one 8-row tile.
    expect_every_level_matches_the_decode_dots(make_problem(GetParam(), 150, 2048, 19, 8, false));
}

TEST_P(QuantGemm, EveryLevelHandlesALastGroupThatEndsInItsSecondHalf) {
    // 28 rows: one full 16-row group, then 12 rows, so the AVX-VNNI level's 8-row slices end with a
    // 4-row one and the AVX-512 level masks 4 lanes of its last tile.
    expect_every_level_matches_the_decode_dots(make_problem(GetParam(), 28, 512, 5, 10, false));
}

TEST_P(QuantGemm, EveryLevelComputesTheDecodeDotsIntegers) {
    // Random level and scale bits (extreme levels: −128 in Q8_0, 63 in Q6_K, negative scales) and
    // activations at ±127: what the unpacking and any i16 saturation would get wrong. The portable
    // decode dot (quant_dot_portable) sums the same integers without SIMD.
    const DType t = GetParam();
    for (unsigned seed : {3u, 4u}) {
        Problem p = make_problem(t, 6, 1024, 5, seed, true);
        if (seed == 4) {
            for (auto& v : p.x) v = v < 0 ? -1.0f : 1.0f;
            for (int i = 0; i < p.n; ++i)
                cpu::quantize_activation(cpu::act_format(t), p.x.data() + i * p.in, p.act.data() + i * p.act_bytes(),
                                         p.in);
        }
        for (KernelLevel level : available_levels()) {
            const auto y = run(p, level);
            for (int i = 0; i < p.n; ++i)
                for (int r = 0; r < p.rows; ++r) {
                    const double ref = cpu::quant_dot_portable(t, p.w.data() + r * p.row_bytes(),
                                                               p.act.data() + i * p.act_bytes(), p.in);
                    const Expected e = expected(p, r, i);
                    ASSERT_NEAR(y[i * p.rows + r], ref, 1e-5 * (std::fabs(e.exact) + e.bound) + 1e-5)
                        << dtype_name(t) << " " << cpu::kernel_level_name(level) << " seed " << seed;
                }
        }
    }
}

TEST_P(QuantGemm, MatMulPrefillUsesTheForcedLevelAndExactPrefillStaysExact) {
    // MatMul's GEMM: the level's kernel on the activation (by default), or on both activation planes
    // (quant_activation_residual.h) added (precise_activations), except at the AVX2 level, where two
    // planes take one 16-bit pass (quant_gemm_wide.h; its own tests: test_quant_gemm_wide.cpp).
    const DType t = GetParam();
    const Problem p = make_problem(t, 48, 512, cpu::kIntegerGemmMinRows + 5, 6, false);
    const TensorView w = view_of(p);
    const std::vector<uint8_t> plane2 = second_plane(p);
    ThreadPool pool(2);
    for (KernelLevel level : available_levels())
        for (bool precise : {false, true}) {
            ForcedLevel forced(cpu::kernel_level_name(level));
            cpu::MatMul mm(pool, /*exact_prefill=*/false, precise);
            std::vector<float> y(static_cast<std::size_t>(p.n) * p.rows);
            mm(w, p.x.data(), p.n, y.data());
            std::vector<float> want = run(p, level);
            if (precise && level == KernelLevel::Avx2 && cpu::quant_gemm_wide_available(level)) {
                const cpu::WideFormat f = cpu::wide_format(t);
                const std::size_t stride = cpu::wide_act_row_bytes(f, p.in);
                std::vector<uint8_t> act(stride * p.n);
                for (int i = 0; i < p.n; ++i)
                    cpu::quantize_activation_wide(f, p.x.data() + i * p.in, act.data() + i * stride, p.in);
                cpu::quant_gemm_wide(level, t, p.w.data(), p.row_bytes(), p.rows, p.in, act.data(), p.n, want.data(),
                                     p.rows);
            } else if (precise) {
                const std::vector<float> lo = run(p, level, &plane2);
                for (std::size_t k = 0; k < want.size(); ++k) want[k] += lo[k];
            }
            EXPECT_EQ(y, want) << dtype_name(t) << " " << cpu::kernel_level_name(level) << " precise " << precise;
        }
    cpu::MatMul exact(pool, /*exact_prefill=*/true);
    std::vector<float> y(static_cast<std::size_t>(p.n) * p.rows);
    exact(w, p.x.data(), p.n, y.data());
    for (int i = 0; i < p.n; ++i)
        for (int r = 0; r < p.rows; ++r) {
            const double e = expected(p, r, i).exact;
            EXPECT_NEAR(y[i * p.rows + r], e, 1e-4 * (std::fabs(e) + 1.0)) << dtype_name(t) << " exact prefill";
        }
}

TEST_P(QuantGemm, MatMulRunsFewRowsThroughTheDecodeDots) {
    // Below kIntegerGemmMinRows rows the GEMM's per-call unpacking would cost more than it saves:
    // MatMul dots each row as decode does (bit for bit the same floats).
    const DType t = GetParam();
    const Problem p = make_problem(t, 40, 512, cpu::kIntegerGemmMinRows - 1, 9, false);
    const TensorView w = view_of(p);
    ThreadPool pool(2);
    // The decode kernel, on the activation in the format it reads (its own for AVX-512 Q4_K), and with
    // precise_activations on the second plane too.
    const cpu::DecodeDot dot = cpu::decode_dot(t);
    const testing::QuantizedActivation act(dot.act, p.x.data(), p.n, p.in);
    const std::vector<float> r2 = residuals(dot.act, p.x.data(), act.row(0), act.stride(), p.n, p.in);
    const testing::QuantizedActivation act2(dot.act, r2.data(), p.n, p.in);
    for (bool precise : {false, true}) {
        cpu::MatMul mm(pool, /*exact_prefill=*/false, precise);
        std::vector<float> y(static_cast<std::size_t>(p.n) * p.rows);
        mm(w, p.x.data(), p.n, y.data());
        for (int i = 0; i < p.n; ++i)
            for (int r = 0; r < p.rows; ++r) {
                const uint8_t* row = p.w.data() + r * p.row_bytes();
                const float one = dot.dot(row, act.row(i), p.in);
                ASSERT_EQ(y[i * p.rows + r], precise ? one + dot.dot(row, act2.row(i), p.in) : one)
                    << dtype_name(t) << " row " << r << " act " << i << " precise " << precise;
            }
    }
}

TEST(MatMulSameInput, OneLoopOverSeveralWeightsGivesTheFloatsOfOneCallEach) {
    // q/k/v and gate/up share their input: in decode MatMul::same_input runs them as one loop over
    // all their rows, whose chunks cross from one weight into the next. Every output must be the
    // float one call per weight gives: for weights sharing an activation format (Q8_0 + Q4_0), for
    // weights whose kernels read different ones (Q4_K + Q6_K with AVX-512, Q4_K beside Q8_0: fused,
    // the activation quantized once per format), and for batches of 1 row, a short question and a
    // prefill chunk (the GEMM, one by one).
    ThreadPool pool(2);
    cpu::MatMul mm(pool);
    const std::vector<std::vector<DType>> sets = {
        {DType::Q4_K, DType::Q4_K, DType::Q6_K}, {DType::Q8_0, DType::Q4_0}, {DType::Q4_K, DType::Q8_0}};
    const int in = 512;
    for (int n : {1, 3, cpu::kIntegerGemmMinRows - 1, cpu::kIntegerGemmMinRows + 3}) {
        const std::vector<float> x = normal(n * in, 70u + n);
        for (const auto& types : sets) {
            std::vector<Problem> problems;
            std::vector<TensorView> views;
            for (std::size_t k = 0; k < types.size(); ++k)
                problems.push_back(make_problem(types[k], 40 + 24 * static_cast<int>(k), in, n, 11u + k, k == 1));
            for (const Problem& p : problems) views.push_back(view_of(p));
            std::vector<std::vector<float>> fused(types.size()), separate(types.size());
            for (std::size_t k = 0; k < types.size(); ++k) {
                fused[k].assign(static_cast<std::size_t>(n) * problems[k].rows, NAN);
                separate[k].assign(fused[k].size(), NAN);
                mm(views[k], x.data(), n, separate[k].data());
            }
            if (types.size() == 3)
                mm.same_input({{&views[0], fused[0].data()}, {&views[1], fused[1].data()}, {&views[2], fused[2].data()}},
                              x.data(), n);
            else
                mm.same_input({{&views[0], fused[0].data()}, {&views[1], fused[1].data()}}, x.data(), n);
            for (std::size_t k = 0; k < types.size(); ++k) {
                for (float v : separate[k]) ASSERT_TRUE(std::isfinite(v));
                EXPECT_EQ(fused[k], separate[k]) << n << " rows, weight " << k << " " << dtype_name(types[k]);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(IntegerBlockTypes, QuantGemm, ::testing::ValuesIn(kGemmTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(KernelLevel, EnvironmentForcesALevelAndRejectsUnknownOrUnavailableOnes) {
    EXPECT_TRUE(cpu::kernel_level_available(KernelLevel::Portable));
    {
        ForcedLevel forced("portable");
        EXPECT_EQ(cpu::active_kernel_level(), KernelLevel::Portable);
    }
    EXPECT_EQ(cpu::active_kernel_level(), cpu::best_kernel_level());
    {
        ForcedLevel forced("sse9");
        EXPECT_THROW(cpu::active_kernel_level(), Error);
    }
    for (KernelLevel l : {KernelLevel::Avx2, KernelLevel::AvxVnni, KernelLevel::Avx512Vnni}) {
        ForcedLevel forced(cpu::kernel_level_name(l));
        if (cpu::kernel_level_available(l))
            EXPECT_EQ(cpu::active_kernel_level(), l);
        else
            EXPECT_THROW(cpu::active_kernel_level(), Error) << cpu::kernel_level_name(l);
    }
    std::printf("[ kernels ] levels here:");
    for (KernelLevel l : available_levels()) std::printf(" %s", cpu::kernel_level_name(l));
    std::printf("\n");
}

TEST(QuantGemm, Iq4XsHasNoIntegerKernelAndMatMulKeepsItExact) {
    EXPECT_FALSE(cpu::quant_gemm_supports(DType::IQ4_XS));
    EXPECT_FALSE(cpu::quant_gemm_supports(DType::F16));
    std::vector<float> y(4);
    EXPECT_THROW(cpu::quant_gemm(KernelLevel::Portable, DType::IQ4_XS, nullptr, 0, 0, 256, nullptr, 0, y.data(), 1),
                 Error);
}

}  // namespace
}  // namespace snapdoc
