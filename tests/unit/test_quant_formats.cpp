// Block-quantized dtypes: every type's dequantize_row against a straightforward reference decoder
// written here from ggml's block definitions (one value at a time from its byte/bit position, a
// different code path from the engine's), on random blocks with extreme and negative scales; the
// quantizers' round-trip error; geometry and the GGML type ids.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/gguf_types.h"
#include "tests/support/random_blocks.h"

// ggml rounds each product separately; so must the reference (no fused multiply-add).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace snapdoc {
namespace {

constexpr DType kBlockTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0,   DType::Q5_1,
                                 DType::Q8_0, DType::Q2_K, DType::Q3_K,   DType::Q4_K,
                                 DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS};

float h(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return f16_to_f32(v);
}
int bit(const uint8_t* bytes, int i) {
    return (bytes[i / 8] >> (i % 8)) & 1;
}
constexpr int kNl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// The 6-bit scale/min j of Q4_K/Q5_K, as ggml's get_scale_min_k4 describes it.
void k4_scale_min(const uint8_t* s, int j, int& sc, int& m) {
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Value e of one block, from the spec.
float ref_value(DType t, const uint8_t* b, int e) {
    switch (t) {
        case DType::Q4_0: {
            const int q = e < 16 ? (b[2 + e] & 0xF) : (b[2 + e - 16] >> 4);
            return static_cast<float>(q - 8) * h(b);
        }
        case DType::Q4_1: {
            const int q = e < 16 ? (b[4 + e] & 0xF) : (b[4 + e - 16] >> 4);
            return static_cast<float>(q) * h(b) + h(b + 2);
        }
        case DType::Q5_0: {
            const int q = (e < 16 ? (b[6 + e] & 0xF) : (b[6 + e - 16] >> 4)) | (bit(b + 2, e) << 4);
            return static_cast<float>(q - 16) * h(b);
        }
        case DType::Q5_1: {
            const int q = (e < 16 ? (b[8 + e] & 0xF) : (b[8 + e - 16] >> 4)) | (bit(b + 4, e) << 4);
            return static_cast<float>(q) * h(b) + h(b + 2);
        }
        case DType::Q8_0:
            return static_cast<float>(static_cast<int8_t>(b[2 + e])) * h(b);
        case DType::IQ4_NL: {
            const int q = e < 16 ? (b[2 + e] & 0xF) : (b[2 + e - 16] >> 4);
            return h(b) * static_cast<float>(kNl[q]);
        }
        case DType::Q2_K: {
            // scales[16] | qs[64] | d | dmin; 128-value halves, four 2-bit planes of 32 values each.
            const int half = e / 128, plane = (e % 128) / 32, l = e % 32;
            const int q = (b[16 + 32 * half + l] >> (2 * plane)) & 3;
            const int s = b[e / 16];
            return h(b + 80) * static_cast<float>(s & 0xF) * static_cast<float>(q) -
                   h(b + 82) * static_cast<float>(s >> 4);
        }
        case DType::Q3_K: {
            // hmask[32] | qs[64] | scales[12] | d
            const int half = e / 128, plane = (e % 128) / 32, l = e % 32;
            const int low = (b[32 + 32 * half + l] >> (2 * plane)) & 3;
            const int high = (b[l] >> (e / 32)) & 1;
            const int k = e / 16;
            const int s_low = k < 8 ? (b[96 + k] & 0xF) : (b[96 + k - 8] >> 4);
            const int s_high = (b[96 + 8 + k % 4] >> (2 * (k / 4))) & 3;
            const int s = (s_low | (s_high << 4)) - 32;
            return h(b + 108) * static_cast<float>(s) * static_cast<float>(low - (high ? 0 : 4));
        }
        case DType::Q4_K:
        case DType::Q5_K: {
            // d | dmin | scales[12] | (Q5_K: qh[32]) | qs[128]
            const bool five = t == DType::Q5_K;
            const int chunk = e / 64, l = e % 32, upper = (e % 64) / 32;
            const uint8_t byte = b[(five ? 48 : 16) + 32 * chunk + l];
            int q = upper ? byte >> 4 : byte & 0xF;
            if (five) q += ((b[16 + l] >> (2 * chunk + upper)) & 1) * 16;
            int sc, m;
            k4_scale_min(b + 4, e / 32, sc, m);
            return h(b) * static_cast<float>(sc) * static_cast<float>(q) - h(b + 2) * static_cast<float>(m);
        }
        case DType::Q6_K: {
            // ql[128] | qh[64] | scales[16] int8 | d
            const int half = e / 128, plane = (e % 128) / 32, l = e % 32;
            const uint8_t lo_byte = b[64 * half + 32 * (plane & 1) + l];
            const int low = plane < 2 ? lo_byte & 0xF : lo_byte >> 4;
            const int high = (b[128 + 32 * half + l] >> (2 * plane)) & 3;
            const int q = (low | (high << 4)) - 32;
            return h(b + 208) * static_cast<float>(static_cast<int8_t>(b[192 + e / 16])) *
                   static_cast<float>(q);
        }
        case DType::IQ4_XS: {
            // d | scales_h u16 | scales_l[4] | qs[128]
            const int ib = e / 32, j = e % 32;
            uint16_t sh;
            std::memcpy(&sh, b + 2, 2);
            const int ls = (((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (((sh >> (2 * ib)) & 3) << 4)) - 32;
            const uint8_t byte = b[8 + 16 * ib + j % 16];
            const int q = j < 16 ? byte & 0xF : byte >> 4;
            return h(b) * static_cast<float>(ls) * static_cast<float>(kNl[q]);
        }
        default:
            return 0.0f;
    }
}

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

class QuantFormat : public ::testing::TestWithParam<DType> {};

TEST_P(QuantFormat, DequantizeMatchesReferenceDecoderBitForBit) {
    const DType t = GetParam();
    std::mt19937 gen(static_cast<unsigned>(t) * 7 + 1);
    // Ordinary, negative, huge, tiny (subnormal) and zero scales: negative mins (Q4_1 m < 0) and
    // negative super-block scales are legal in files even if quantizers rarely write them.
    const std::vector<float> scales = {0.0123f,   -0.0456f, 1.5f, -3.0f, 65504.0f,
                                       -65504.0f, 5.96e-8f, 0.0f, 1e-4f};
    const int blocks = 24;
    const int bs = dtype_block_size(t);
    const auto bytes = testing::random_blocks(t, blocks, gen, scales);
    std::vector<float> got(static_cast<std::size_t>(blocks * bs));
    dequantize_row(t, bytes.data(), got.data(), blocks * bs);
    for (int b = 0; b < blocks; ++b)
        for (int e = 0; e < bs; ++e) {
            const float want = ref_value(t, bytes.data() + b * dtype_block_bytes(t), e);
            ASSERT_EQ(bits_of(got[b * bs + e]), bits_of(want))
                << dtype_name(t) << " block " << b << " value " << e << ": " << got[b * bs + e] << " vs "
                << want;
        }
}

TEST_P(QuantFormat, FullyRandomBytesDecodeLikeTheReference) {
    // Scales too are random bit patterns here (NaN and inf included): compared as bits.
    const DType t = GetParam();
    std::mt19937 gen(99 + static_cast<unsigned>(t));
    std::vector<uint8_t> bytes(static_cast<std::size_t>(8 * dtype_block_bytes(t)));
    for (auto& x : bytes) x = static_cast<uint8_t>(gen());
    const int n = 8 * dtype_block_size(t);
    std::vector<float> got(static_cast<std::size_t>(n));
    dequantize_row(t, bytes.data(), got.data(), n);
    for (int i = 0; i < n; ++i) {
        const float want = ref_value(t, bytes.data() + (i / dtype_block_size(t)) * dtype_block_bytes(t),
                                     i % dtype_block_size(t));
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got[i])) << i;
        } else {
            ASSERT_EQ(bits_of(got[i]), bits_of(want)) << dtype_name(t) << " value " << i;
        }
    }
}

// RMS error of quantize -> dequantize relative to the data's RMS, on normal data with a few
// outliers, per type. The bounds are ~1.3x what the simple quantizers reach (2-bit is coarse).
double round_trip_bound(DType t) {
    switch (t) {
        case DType::Q8_0:
            return 0.01;
        case DType::Q6_K:
            return 0.03;
        case DType::Q5_1:
        case DType::Q5_K:
            return 0.06;
        case DType::Q5_0:
            return 0.08;  // symmetric: an outlier sets the step of its whole block
        case DType::Q4_0:
            return 0.16;
        case DType::Q4_1:
        case DType::Q4_K:
        case DType::IQ4_NL:
        case DType::IQ4_XS:
            return 0.12;
        case DType::Q3_K:
            return 0.25;
        default:
            return 0.5;  // Q2_K
    }
}

TEST_P(QuantFormat, QuantizeRoundTripErrorIsBounded) {
    const DType t = GetParam();
    std::mt19937 gen(5);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    const int n = 256 * 16;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = nd(gen) * (i < 256 ? 1e-3f : 1.0f) + (i % 97 == 0 ? 4.0f : 0.0f);
    for (int i = 512; i < 768; ++i) x[i] = 0.0f;                       // an all-zero super-block
    for (int i = 768; i < 1024; ++i) x[i] = std::fabs(x[i]) + 0.5f;    // all positive (min > 0)
    for (int i = 1024; i < 1280; ++i) x[i] = -std::fabs(x[i]) - 0.5f;  // all negative
    std::vector<uint8_t> q(dtype_row_bytes(t, n));
    quantize_row(t, x.data(), q.data(), n);
    std::vector<float> y(n);
    dequantize_row(t, q.data(), y.data(), n);
    // Per 256 values (one super-block or 8 legacy blocks), relative to that range's RMS.
    for (int s = 0; s < n / 256; ++s) {
        double err = 0, ref = 0;
        for (int i = 256 * s; i < 256 * (s + 1); ++i) {
            err += (y[i] - x[i]) * static_cast<double>(y[i] - x[i]);
            ref += x[i] * static_cast<double>(x[i]);
        }
        if (ref == 0) {
            EXPECT_EQ(err, 0.0) << dtype_name(t) << " zeros must stay zeros";
            continue;
        }
        EXPECT_LT(std::sqrt(err / ref), round_trip_bound(t)) << dtype_name(t) << " super-block " << s;
    }
}

TEST_P(QuantFormat, QuantizerSurvivesNonFiniteInput) {
    const DType t = GetParam();
    const int n = dtype_block_size(t);
    std::vector<float> x(n, 1.0f);
    x[3] = std::numeric_limits<float>::quiet_NaN();
    x[5] = std::numeric_limits<float>::infinity();
    x[6] = -std::numeric_limits<float>::infinity();
    std::vector<uint8_t> q(dtype_row_bytes(t, n));
    quantize_row(t, x.data(), q.data(), n);  // no float->int UB (UBSan builds check this)
    std::vector<float> y(n);
    dequantize_row(t, q.data(), y.data(), n);
    for (float v : y) EXPECT_FALSE(std::isinf(v)) << dtype_name(t);
}

TEST_P(QuantFormat, GeometryAndGgmlIds) {
    const DType t = GetParam();
    const int bs = dtype_block_size(t);
    EXPECT_TRUE(dtype_is_quantized(t));
    EXPECT_TRUE(dtype_row_fits(t, 4 * bs));
    EXPECT_FALSE(dtype_row_fits(t, bs + 16));
    EXPECT_EQ(dtype_row_bytes(t, 3 * bs), 3u * static_cast<unsigned>(dtype_block_bytes(t)));
    const uint32_t id = ggml_from_dtype(t);
    EXPECT_EQ(dtype_from_ggml(id), t);
    EXPECT_EQ(ggml_type_name(id), dtype_name(t));
    const auto layout = ggml_type_layout(id);
    ASSERT_TRUE(layout.has_value());
    EXPECT_EQ(layout->block_size, bs);
    EXPECT_EQ(layout->block_bytes, dtype_block_bytes(t));
}

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, QuantFormat, ::testing::ValuesIn(kBlockTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(QuantFormat, GgmlIdsAndSizesAreGgmls) {
    // Type ids from ggml.h's enum ggml_type, block sizes from ggml-common.h's static_asserts.
    const struct {
        DType t;
        uint32_t id;
        int block, bytes;
    } expected[] = {
        {DType::Q4_0, 2, 32, 18},    {DType::Q4_1, 3, 32, 20},    {DType::Q5_0, 6, 32, 22},
        {DType::Q5_1, 7, 32, 24},    {DType::Q8_0, 8, 32, 34},    {DType::Q2_K, 10, 256, 84},
        {DType::Q3_K, 11, 256, 110}, {DType::Q4_K, 12, 256, 144}, {DType::Q5_K, 13, 256, 176},
        {DType::Q6_K, 14, 256, 210}, {DType::IQ4_NL, 20, 32, 18}, {DType::IQ4_XS, 23, 256, 136},
    };
    for (const auto& e : expected) {
        EXPECT_EQ(ggml_from_dtype(e.t), e.id) << dtype_name(e.t);
        EXPECT_EQ(dtype_block_size(e.t), e.block) << dtype_name(e.t);
        EXPECT_EQ(dtype_block_bytes(e.t), e.bytes) << dtype_name(e.t);
    }
    EXPECT_FALSE(dtype_is_quantized(DType::F16));
    EXPECT_FALSE(dtype_from_ggml(99).has_value());
    EXPECT_EQ(ggml_type_name(99), "type id 99");
}

}  // namespace
}  // namespace snapdoc
