// Batch-1 quantized dot products (8-bit activations, integer products) against dequantize + exact
// dot, SIMD against portable kernels, and MatMul's small-batch path against its sgemm path.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_dot.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "tests/support/quantized_activation.h"
#include "tests/support/random_blocks.h"

namespace snapdoc {
namespace {

using cpu::ActFormat;

constexpr DType kBlockTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0,   DType::Q5_1,
                                 DType::Q8_0, DType::Q2_K, DType::Q3_K,   DType::Q4_K,
                                 DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS};

std::vector<float> normal(int n, unsigned seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = nd(gen);
    return v;
}

std::vector<uint8_t> quantized(DType t, const std::vector<float>& x) {
    std::vector<uint8_t> q(dtype_row_bytes(t, static_cast<int64_t>(x.size())));
    quantize_row(t, x.data(), q.data(), static_cast<int64_t>(x.size()));
    return q;
}

struct DotCase {
    double exact;  // dequantized weights · f32 activations, in double
    double bound;  // what 8-bit activations may change: Σ |w_i| · (half an activation step of i's block)
};

DotCase exact_dot(DType t, const std::vector<uint8_t>& wq, const std::vector<float>& x) {
    const int n = static_cast<int>(x.size());
    std::vector<float> w(n);
    dequantize_row(t, wq.data(), w.data(), n);
    const int bs = cpu::act_format(t) == ActFormat::Blocks32 ? 32 : 256;
    DotCase c{0.0, 0.0};
    double magnitude = 0.0;
    for (int b = 0; b < n / bs; ++b) {
        float amax = 0.0f;
        for (int i = 0; i < bs; ++i) amax = std::max(amax, std::fabs(x[b * bs + i]));
        for (int i = b * bs; i < (b + 1) * bs; ++i) {
            c.exact += static_cast<double>(w[i]) * x[i];
            c.bound += std::fabs(w[i]) * (amax / 127.0 / 2.0);
            magnitude += std::fabs(static_cast<double>(w[i]) * x[i]);
        }
    }
    c.bound = c.bound * 1.001 + 1e-5 * magnitude + 1e-30;  // + float accumulation of block sums
    return c;
}

std::vector<uint8_t> activation(DType t, const std::vector<float>& x) {
    const ActFormat f = cpu::act_format(t);
    std::vector<uint8_t> a(cpu::act_row_bytes(f, static_cast<int64_t>(x.size())));
    cpu::quantize_activation(f, x.data(), a.data(), static_cast<int64_t>(x.size()));
    return a;
}

// What MatMul's decode path computes: decode_dot(t)'s kernel on the activation in its own format.
double decode_dot(DType t, const std::vector<uint8_t>& wq, const std::vector<float>& x) {
    const cpu::DecodeDot dot = cpu::decode_dot(t);
    const auto n = static_cast<int64_t>(x.size());
    const testing::QuantizedActivation act(dot.act, x.data(), 1, n);
    return dot.dot(wq.data(), act.row(0), n);
}

class QuantDot : public ::testing::TestWithParam<DType> {};

TEST_P(QuantDot, MatchesDequantizedDotWithinActivationRounding) {
    const DType t = GetParam();
    const int n = 256 * 12;
    for (unsigned seed : {1u, 2u, 3u}) {
        auto wf = normal(n, seed, 0.05f);
        auto x = normal(n, seed + 100);
        if (seed == 2) {
            for (int i = 0; i < n; i += 61) x[i] *= 40.0f;  // activation outliers (as real models have)
            for (int i = 256; i < 512; ++i)
                wf[i] = std::fabs(wf[i]) + 0.02f;  // positive weights: min terms matter
        }
        if (seed == 3)
            for (int i = 0; i < 256; ++i) x[i] = 0.0f;  // an all-zero activation block
        const auto wq = quantized(t, wf);
        const auto a = activation(t, x);
        const DotCase c = exact_dot(t, wq, x);
        const double got = cpu::quant_dot(t, wq.data(), a.data(), n);
        EXPECT_NEAR(got, c.exact, c.bound) << dtype_name(t) << " seed " << seed;
        const double portable = cpu::quant_dot_portable(t, wq.data(), a.data(), n);
        EXPECT_NEAR(portable, c.exact, c.bound) << dtype_name(t) << " seed " << seed << " (portable)";
        // Both compute the same integers; only float summation order differs.
        EXPECT_NEAR(got, portable, 1e-5 * (std::fabs(c.exact) + c.bound) + 1e-6) << dtype_name(t);
        const double decode = decode_dot(t, wq, x);
        EXPECT_NEAR(decode, c.exact, c.bound) << dtype_name(t) << " seed " << seed << " (decode)";
        EXPECT_NEAR(decode, portable, 1e-5 * (std::fabs(c.exact) + c.bound) + 1e-6) << dtype_name(t) << " (decode)";
    }
}

TEST_P(QuantDot, RandomBlockBytesAgreeBetweenSimdAndPortable) {
    // Arbitrary level and scale bits (finite f16 scales) — the kernels' unpacking, not the quantizer's
    // choices, is what this exercises.
    const DType t = GetParam();
    const int n = 256 * 4;
    std::mt19937 gen(7 + static_cast<unsigned>(t));
    const auto wq = testing::random_blocks(t, n / dtype_block_size(t), gen, {0.01f, -0.02f, 0.003f, 0.0f});
    const auto x = normal(n, 11);
    const auto a = activation(t, x);
    const DotCase c = exact_dot(t, wq, x);
    const double got = cpu::quant_dot(t, wq.data(), a.data(), n);
    const double portable = cpu::quant_dot_portable(t, wq.data(), a.data(), n);
    EXPECT_NEAR(got, c.exact, c.bound) << dtype_name(t);
    EXPECT_NEAR(got, portable, 1e-5 * (std::fabs(c.exact) + c.bound) + 1e-6) << dtype_name(t);
    const double decode = decode_dot(t, wq, x);
    EXPECT_NEAR(decode, c.exact, c.bound) << dtype_name(t) << " (decode)";
    EXPECT_NEAR(decode, portable, 1e-5 * (std::fabs(c.exact) + c.bound) + 1e-6) << dtype_name(t) << " (decode)";
}

TEST_P(QuantDot, MatMulSmallBatchAgreesWithSgemmPath) {
    const DType t = GetParam();
    const int out = 48, in = 512;
    const auto wf = normal(out * in, 21, 0.05f);
    std::vector<uint8_t> wq(dtype_row_bytes(t, in) * out);
    for (int r = 0; r < out; ++r)
        quantize_row(t, wf.data() + r * in, wq.data() + r * dtype_row_bytes(t, in), in);
    TensorView w;
    w.name = "w";
    w.dtype = t;
    w.shape = {out, in};
    w.data = wq.data();
    w.nbytes = wq.size();
    const int rows = cpu::kSmallBatchRows + 4;  // > kSmallBatchRows: the sgemm path (exact_prefill)
    const auto x = normal(rows * in, 22);
    ThreadPool pool(2);
    cpu::MatMul mm(pool, /*exact_prefill=*/true);
    std::vector<float> y_blas(static_cast<std::size_t>(rows * out)),
        y_small(static_cast<std::size_t>(2 * out));
    mm(w, x.data(), rows, y_blas.data());
    mm(w, x.data(), 2, y_small.data());  // the first two rows through the quantized small-batch path
    std::vector<float> wrow(in);
    for (int i = 0; i < 2; ++i)
        for (int r = 0; r < out; ++r) {
            const std::vector<uint8_t> one(wq.begin() + r * dtype_row_bytes(t, in),
                                           wq.begin() + (r + 1) * dtype_row_bytes(t, in));
            const DotCase c =
                exact_dot(t, one, std::vector<float>(x.begin() + i * in, x.begin() + (i + 1) * in));
            EXPECT_NEAR(y_blas[i * out + r], c.exact, 1e-4 * (std::fabs(c.exact) + 1.0))
                << dtype_name(t) << " sgemm";
            EXPECT_NEAR(y_small[i * out + r], c.exact, c.bound) << dtype_name(t) << " small batch";
        }
}

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, QuantDot, ::testing::ValuesIn(kBlockTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(QuantActivation, BlocksHoldScaleAndSums) {
    auto x = normal(512, 3);
    x[7] = -50.0f;
    x[300] = std::numeric_limits<float>::quiet_NaN();  // poisons its block: d = NaN, so the NaN reaches the dot
    std::vector<uint8_t> buf(cpu::act_row_bytes(ActFormat::Blocks256, 512));
    cpu::quantize_activation(ActFormat::Blocks256, x.data(), buf.data(), 512);
    const auto* a = reinterpret_cast<const cpu::ActBlock256*>(buf.data());
    EXPECT_FLOAT_EQ(a[0].d, 50.0f / 127.0f);
    EXPECT_EQ(a[0].q[7], -127);
    EXPECT_EQ(a[1].q[300 - 256], 0);
    EXPECT_TRUE(std::isnan(a[1].d));  // it was 0 with the NaN skipped: every logit came out finite
    for (int b = 0; b < 2; ++b)
        for (int g = 0; g < 16; ++g) {
            int s = 0;
            for (int i = 0; i < 16; ++i) s += a[b].q[16 * g + i];
            EXPECT_EQ(a[b].sums16[g], s);
        }
    std::vector<uint8_t> buf32(cpu::act_row_bytes(ActFormat::Blocks32, 64));
    cpu::quantize_activation(ActFormat::Blocks32, x.data(), buf32.data(), 64);
    const auto* c = reinterpret_cast<const cpu::ActBlock32*>(buf32.data());
    EXPECT_TRUE(std::isfinite(c[1].d));
    int s = 0;
    for (int i = 0; i < 32; ++i) s += c[1].q[i];
    EXPECT_FLOAT_EQ(c[1].d_sum, c[1].d * static_cast<float>(s));
}

// The 512-bit Q4_K kernel's layout: a Blocks256 block's scale and levels, each 128 levels in the
// order one load of packed nibbles yields them ([0..31, 64..95, 32..63, 96..127]), sums per 32.
TEST(QuantActivation, NibbleOrderBlocksHoldTheBlocks256LevelsReordered) {
    auto x = normal(512, 5);
    x[100] = 60.0f;
    const testing::QuantizedActivation file_order(ActFormat::Blocks256, x.data(), 1, 512);
    const testing::QuantizedActivation nibble_order(ActFormat::Blocks256Nibbles, x.data(), 1, 512);
    EXPECT_EQ(nibble_order.stride(), 2 * sizeof(cpu::ActBlock256Nibbles));
    const auto* a = reinterpret_cast<const cpu::ActBlock256*>(file_order.row(0));
    const auto* b = reinterpret_cast<const cpu::ActBlock256Nibbles*>(nibble_order.row(0));
    const int order[4] = {0, 64, 32, 96};  // where each 32 stored levels come from, per 128
    for (int blk = 0; blk < 2; ++blk) {
        EXPECT_EQ(b[blk].d, a[blk].d);
        for (int i = 0; i < 256; ++i) {
            const int from = 128 * (i / 128) + order[i % 128 / 32] + i % 32;
            ASSERT_EQ(b[blk].q[i], a[blk].q[from]) << "block " << blk << " level " << i;
        }
        for (int g = 0; g < 8; ++g) EXPECT_EQ(b[blk].sums32[g], a[blk].sums16[2 * g] + a[blk].sums16[2 * g + 1]);
    }
}

TEST(QuantActivation, SimdAndPortableQuantizersAgreeByteForByte) {
    auto x = normal(1024, 8);
    x[5] = std::numeric_limits<float>::quiet_NaN();
    x[40] = 1e-30f;
    for (int i = 512; i < 768; ++i) x[i] = 0.0f;
    for (int i = 300; i < 310; ++i) x[i] = 0.5f * static_cast<float>(i - 305) / 127.0f;  // ties at half steps
    for (ActFormat f : {ActFormat::Blocks32, ActFormat::Blocks256, ActFormat::Blocks256Nibbles}) {
        const testing::QuantizedActivation simd(f, x.data(), 1, 1024, cpu::quantize_activation);
        const testing::QuantizedActivation portable(f, x.data(), 1, 1024, cpu::quantize_activation_portable);
        EXPECT_EQ(simd.bytes_copy(), portable.bytes_copy());
    }
}

// A NaN or Inf activation must not vanish in the 8-bit quantizer (the NaN-logit guard never fired on
// quantized models): its block's scale is NaN in both implementations, the other blocks are intact.
TEST(QuantActivation, NonFiniteValuesPoisonTheirBlockScale) {
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity()}) {
        auto x = normal(512, 4);
        x[260] = bad;
        for (auto quantize : {&cpu::quantize_activation, &cpu::quantize_activation_portable}) {
            std::vector<uint8_t> b256(cpu::act_row_bytes(ActFormat::Blocks256, 512));
            quantize(ActFormat::Blocks256, x.data(), b256.data(), 512);
            const auto* a = reinterpret_cast<const cpu::ActBlock256*>(b256.data());
            EXPECT_TRUE(std::isfinite(a[0].d));
            EXPECT_TRUE(std::isnan(a[1].d)) << bad;
            std::vector<cpu::ActBlock256Nibbles> nibbles(2);
            quantize(ActFormat::Blocks256Nibbles, x.data(), nibbles.data(), 512);
            EXPECT_TRUE(std::isfinite(nibbles[0].d));
            EXPECT_TRUE(std::isnan(nibbles[1].d)) << bad;
            std::vector<uint8_t> b32(cpu::act_row_bytes(ActFormat::Blocks32, 512));
            quantize(ActFormat::Blocks32, x.data(), b32.data(), 512);
            const auto* c = reinterpret_cast<const cpu::ActBlock32*>(b32.data());
            EXPECT_TRUE(std::isnan(c[260 / 32].d)) << bad;
            EXPECT_TRUE(std::isnan(c[260 / 32].d_sum)) << bad;
            EXPECT_TRUE(std::isfinite(c[0].d));
        }
    }
}

}  // namespace
}  // namespace snapdoc
