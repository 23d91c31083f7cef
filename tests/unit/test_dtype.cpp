// F16 / BF16 / Q8_0 conversions: exactness on every f16 value, round-to-nearest-even on encode
// (checked against an exact double-precision reference), special values, and the Q8_0 error bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc {
namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// f16 value of a finite, non-NaN bit pattern, computed independently in double.
double f16_value(uint16_t h) {
    const int sign = (h & 0x8000) ? -1 : 1;
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    if (exp == 0) return sign * std::ldexp(mant, -24);
    return sign * std::ldexp(1024 + mant, exp - 25);
}

// Reference RNE encoder by exhaustive nearest search over the (monotonic) positive f16 codes.
uint16_t f16_reference(float f) {
    if (std::isnan(f)) return 0x7e00;
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double a = std::fabs(static_cast<double>(f));
    if (a >= 65520.0) return sign | 0x7c00;  // halfway between 65504 and 65536 rounds to even (inf)
    uint16_t lo = 0, hi = 0x7bff;
    while (lo < hi) {  // largest code with value <= a
        const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
        if (f16_value(mid) <= a) lo = mid; else hi = static_cast<uint16_t>(mid - 1);
    }
    uint16_t best = lo;
    if (lo < 0x7bff || f16_value(lo) < a) {
        const uint16_t up = static_cast<uint16_t>(lo + 1);
        const double dl = a - f16_value(lo), du = f16_value(up) - a;
        if (du < dl || (du == dl && (lo & 1))) best = up;
    }
    return sign | best;
}

TEST(DType, NamesAndRowBytes) {
    EXPECT_EQ(dtype_name(DType::F32), "F32");
    EXPECT_EQ(dtype_name(DType::BF16), "BF16");
    EXPECT_EQ(dtype_name(DType::Q8_0), "Q8_0");
    EXPECT_EQ(dtype_row_bytes(DType::F32, 10), 40u);
    EXPECT_EQ(dtype_row_bytes(DType::F16, 10), 20u);
    EXPECT_EQ(dtype_row_bytes(DType::BF16, 10), 20u);
    EXPECT_EQ(dtype_row_bytes(DType::Q8_0, 64), 68u);
    EXPECT_TRUE(dtype_row_fits(DType::Q8_0, 96));
    EXPECT_FALSE(dtype_row_fits(DType::Q8_0, 48));
    EXPECT_TRUE(dtype_row_fits(DType::F16, 7));
}

TEST(DType, F16DecodeIsExactForEveryValue) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = f16_to_f32(static_cast<uint16_t>(h));
        const int exp = (h >> 10) & 0x1f;
        if (exp == 31) {
            if ((h & 0x3ff) == 0) {
                EXPECT_TRUE(std::isinf(f)) << h;
                EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0);
            } else {
                EXPECT_TRUE(std::isnan(f)) << h;
            }
            continue;
        }
        ASSERT_EQ(static_cast<double>(f), f16_value(static_cast<uint16_t>(h))) << "h=" << h;
        ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
        // Every non-NaN f16 survives a round trip bit for bit.
        ASSERT_EQ(f32_to_f16(f), h) << "h=" << h;
    }
}

TEST(DType, F16EncodeRoundsToNearestEven) {
    // Exactly halfway cases, both directions of the tie.
    EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f), 0x3c00);  // tie, 1.0 is even
    EXPECT_EQ(f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, rounds up to even
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // tie between max and inf -> inf
    EXPECT_EQ(f32_to_f16(1e10f), 0x7c00);
    EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00);
    EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
    EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001);  // smallest subnormal
    EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);  // tie with zero -> even (zero)
    EXPECT_EQ(f32_to_f16(0x1.000002p-25f), 0x0001);
    EXPECT_EQ(f32_to_f16(3 * 0x1p-25f), 0x0002);  // 1.5 ulp tie -> even (2)
    EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
    EXPECT_EQ(f32_to_f16(0x1p-14f - 0x1p-25f), 0x0400);  // rounds up into the smallest normal
    EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::denorm_min()), 0x0000);
    const uint16_t nan = f32_to_f16(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x3ff, 0);
    // A signalling NaN whose payload sits in the low bits must stay NaN.
    EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(from_bits(0x7f800001u)))));

    std::mt19937 gen(7);
    std::uniform_int_distribution<uint32_t> any;
    for (int i = 0; i < 200000; ++i) {
        // Cover every exponent: random bits with the exponent drawn around the f16 range.
        uint32_t u = any(gen);
        const uint32_t exp = 96 + (u % 50);  // 2^-31 .. 2^18
        u = (u & 0x807fffffu) | (exp << 23);
        const float f = from_bits(u);
        ASSERT_EQ(f32_to_f16(f), f16_reference(f)) << "bits=" << std::hex << u;
    }
}

TEST(DType, F16RowConversionMatchesScalar) {
    // The row path may use F16C; it must agree with the scalar codec (NaNs only need to stay NaN).
    std::vector<uint16_t> all(0x10000);
    for (uint32_t h = 0; h < 0x10000; ++h) all[h] = static_cast<uint16_t>(h);
    std::vector<float> out(all.size());
    dequantize_row(DType::F16, all.data(), out.data(), static_cast<int64_t>(all.size()));
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float s = f16_to_f32(static_cast<uint16_t>(h));
        if (std::isnan(s)) {
            ASSERT_TRUE(std::isnan(out[h]));
        } else {
            ASSERT_EQ(bits(out[h]), bits(s)) << h;
        }
    }
    std::mt19937 gen(3);
    std::uniform_int_distribution<uint32_t> any;
    std::vector<float> src(100003);  // odd length exercises the scalar tail
    for (float& f : src) {
        uint32_t u = any(gen);
        u = (u & 0x807fffffu) | ((96 + (u % 50)) << 23);
        f = from_bits(u);
    }
    std::vector<uint16_t> enc(src.size());
    quantize_row(DType::F16, src.data(), enc.data(), static_cast<int64_t>(src.size()));
    for (std::size_t i = 0; i < src.size(); ++i) ASSERT_EQ(enc[i], f32_to_f16(src[i])) << i;
}

TEST(DType, Bf16RoundTripsAndRounding) {
    for (uint32_t b = 0; b < 0x10000; ++b) {
        const float f = bf16_to_f32(static_cast<uint16_t>(b));
        ASSERT_EQ(bits(f), b << 16);
        if (!std::isnan(f)) {
            ASSERT_EQ(f32_to_bf16(f), b);
        }
    }
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f808000u)), 0x3f80);  // tie, even stays
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f818000u)), 0x3f82);  // tie, odd rounds up
    EXPECT_EQ(f32_to_bf16(from_bits(0x3f808001u)), 0x3f81);  // above the tie
    EXPECT_EQ(f32_to_bf16(from_bits(0x7f7fffffu)), 0x7f80);  // max float rounds to inf
    EXPECT_EQ(f32_to_bf16(from_bits(0x00008000u)), 0x0000);  // subnormal tie -> even
    EXPECT_EQ(f32_to_bf16(from_bits(0x00018000u)), 0x0002);
    EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
    // NaN whose payload is only in the low 16 bits must not become infinity.
    EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(from_bits(0x7f800001u)))));
    EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(from_bits(0xff800001u)))));

    std::vector<float> src = {1.0f, -2.5f, 3.14159f, 1e-40f, 65504.0f};
    std::vector<uint16_t> enc(src.size());
    std::vector<float> dec(src.size());
    quantize_row(DType::BF16, src.data(), enc.data(), 5);
    dequantize_row(DType::BF16, enc.data(), dec.data(), 5);
    for (std::size_t i = 0; i < src.size(); ++i) EXPECT_EQ(dec[i], bf16_to_f32(f32_to_bf16(src[i])));
}

TEST(DType, Q8_0LayoutAndErrorBound) {
    std::mt19937 gen(11);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    const int n = 32 * 64;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = nd(gen) * (i < 32 ? 1e-3f : (i < 64 ? 100.0f : 1.0f));
    x[100] = 0.0f;
    for (int i = 128; i < 160; ++i) x[i] = 0.0f;  // an all-zero block
    std::vector<uint8_t> q(dtype_row_bytes(DType::Q8_0, n));
    quantize_row_q8_0(x.data(), q.data(), n);
    std::vector<float> y(n);
    dequantize_row(DType::Q8_0, q.data(), y.data(), n);
    for (int b = 0; b < n / 32; ++b) {
        float amax = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
        // Layout: f16 scale, then 32 int8 with value = d * q.
        uint16_t dh;
        std::memcpy(&dh, q.data() + b * 34, 2);
        const float d = f16_to_f32(dh);
        for (int j = 0; j < 32; ++j) {
            const auto qi = static_cast<int8_t>(q[b * 34 + 2 + j]);
            ASSERT_EQ(y[b * 32 + j], d * qi);
            ASSERT_GE(qi, -127);
            ASSERT_LE(std::fabs(y[b * 32 + j] - x[b * 32 + j]), 0.51f * amax / 127.0f + 1e-12f) << b << "," << j;
        }
    }
    for (int i = 128; i < 160; ++i) EXPECT_EQ(y[i], 0.0f);
    // The generic encoder is the same thing.
    std::vector<uint8_t> q2(q.size());
    quantize_row(DType::Q8_0, x.data(), q2.data(), n);
    EXPECT_EQ(q, q2);
}

TEST(DType, Q8_0SurvivesNonFiniteInput) {
    std::vector<float> x(32, 1.0f);
    x[3] = std::numeric_limits<float>::quiet_NaN();
    x[5] = std::numeric_limits<float>::infinity();
    std::vector<uint8_t> q(34);
    quantize_row_q8_0(x.data(), q.data(), 32);  // must not trap (no float->int UB)
    std::vector<float> y(32);
    dequantize_row(DType::Q8_0, q.data(), y.data(), 32);
    SUCCEED();
}

TEST(DType, F32RowIsACopy) {
    std::vector<float> x = {1, -2, 3.5f, std::numeric_limits<float>::infinity()};
    std::vector<float> enc(4), dec(4);
    quantize_row(DType::F32, x.data(), enc.data(), 4);
    dequantize_row(DType::F32, enc.data(), dec.data(), 4);
    EXPECT_EQ(dec, x);
}

}  // namespace
}  // namespace snapdoc
