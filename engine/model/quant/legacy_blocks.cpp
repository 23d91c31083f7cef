// The legacy 32-value block types: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 (layouts in block_formats.h).
#include <algorithm>
#include <cmath>

#include "engine/model/quant/block_formats.h"
#include "engine/model/quant/no_fp_contract.h"  // last: see there
#include "engine/model/quant/quant_rows.h"
#include "engine/model/quant/quantize_helpers.h"

namespace snapdoc::quant {

namespace {

constexpr int kHalf = kLegacyBlock / 2;

float half_at(const uint8_t* p) {
    return f16_to_f32(load_u16(p));
}

// Range of a block ignoring NaN: (min, max), both 0 when nothing is finite.
void min_max(const float* x, int n, float& lo, float& hi) {
    lo = 0.0f;
    hi = 0.0f;
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(x[i])) continue;
        lo = any ? std::min(lo, x[i]) : x[i];
        hi = any ? std::max(hi, x[i]) : x[i];
        any = true;
    }
}

// Packs 32 levels (0..15 after masking) as ggml does: value j in the low nibble of byte j, value
// j + 16 in the high nibble.
void pack_nibbles(const int* levels, uint8_t* qs) {
    for (int j = 0; j < kHalf; ++j)
        qs[j] = static_cast<uint8_t>((levels[j] & 0xF) | ((levels[j + kHalf] & 0xF) << 4));
}

// Bit 4 of each level, value j at bit j.
uint32_t high_bits(const int* levels) {
    uint32_t qh = 0;
    for (int j = 0; j < kLegacyBlock; ++j) qh |= static_cast<uint32_t>((levels[j] >> 4) & 1) << j;
    return qh;
}

// Symmetric blocks (Q4_0, Q5_0): the largest-magnitude value maps to the most negative level, so
// the full signed range [-offset, offset - 1] is used.
void quantize_symmetric(const float* x, int offset, uint8_t* d_at, int* levels) {
    const float d = store_f16(d_at, signed_absmax(x, kLegacyBlock) / static_cast<float>(-offset));
    const float id = inverse_or_zero(d);
    for (int j = 0; j < kLegacyBlock; ++j)
        levels[j] = round_clamped(x[j] * id + static_cast<float>(offset), 0, 2 * offset - 1);
}

// Affine blocks (Q4_1, Q5_1): x = d * q + m with m the block minimum.
void quantize_affine(const float* x, int max_level, uint8_t* d_at, uint8_t* m_at, int* levels) {
    float lo, hi;
    min_max(x, kLegacyBlock, lo, hi);
    const float d = store_f16(d_at, (hi - lo) / static_cast<float>(max_level));
    const float m = store_f16(m_at, lo);
    const float id = inverse_or_zero(d);
    for (int j = 0; j < kLegacyBlock; ++j) levels[j] = round_clamped((x[j] - m) * id, 0, max_level);
}

}  // namespace

void dequantize_q4_0(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kQ4_0Bytes, dst += kLegacyBlock) {
        const float d = half_at(src);
        const uint8_t* qs = src + 2;
        for (int j = 0; j < kHalf; ++j) {
            dst[j] = static_cast<float>((qs[j] & 0xF) - 8) * d;
            dst[j + kHalf] = static_cast<float>((qs[j] >> 4) - 8) * d;
        }
    }
}

void dequantize_q4_1(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kQ4_1Bytes, dst += kLegacyBlock) {
        const float d = half_at(src), m = half_at(src + 2);
        const uint8_t* qs = src + 4;
        for (int j = 0; j < kHalf; ++j) {
            dst[j] = static_cast<float>(qs[j] & 0xF) * d + m;
            dst[j + kHalf] = static_cast<float>(qs[j] >> 4) * d + m;
        }
    }
}

void dequantize_q5_0(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kQ5_0Bytes, dst += kLegacyBlock) {
        const float d = half_at(src);
        const uint32_t qh = load_u32(src + 2);
        const uint8_t* qs = src + 6;
        for (int j = 0; j < kHalf; ++j) {
            const int lo = (qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4);
            const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + kHalf)) & 1u) << 4);
            dst[j] = static_cast<float>(lo - 16) * d;
            dst[j + kHalf] = static_cast<float>(hi - 16) * d;
        }
    }
}

void dequantize_q5_1(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kQ5_1Bytes, dst += kLegacyBlock) {
        const float d = half_at(src), m = half_at(src + 2);
        const uint32_t qh = load_u32(src + 4);
        const uint8_t* qs = src + 8;
        for (int j = 0; j < kHalf; ++j) {
            const int lo = (qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4);
            const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + kHalf)) & 1u) << 4);
            dst[j] = static_cast<float>(lo) * d + m;
            dst[j + kHalf] = static_cast<float>(hi) * d + m;
        }
    }
}

void dequantize_q8_0(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kQ8_0Bytes, dst += kLegacyBlock) {
        const float d = half_at(src);
        const auto* q = reinterpret_cast<const int8_t*>(src + 2);
        for (int j = 0; j < kLegacyBlock; ++j) dst[j] = static_cast<float>(q[j]) * d;
    }
}

void quantize_q4_0(const float* src, uint8_t* dst, int64_t n) {
    int levels[kLegacyBlock];
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kQ4_0Bytes) {
        quantize_symmetric(src, 8, dst, levels);
        pack_nibbles(levels, dst + 2);
    }
}

void quantize_q4_1(const float* src, uint8_t* dst, int64_t n) {
    int levels[kLegacyBlock];
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kQ4_1Bytes) {
        quantize_affine(src, 15, dst, dst + 2, levels);
        pack_nibbles(levels, dst + 4);
    }
}

void quantize_q5_0(const float* src, uint8_t* dst, int64_t n) {
    int levels[kLegacyBlock];
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kQ5_0Bytes) {
        quantize_symmetric(src, 16, dst, levels);
        const uint32_t qh = high_bits(levels);
        std::memcpy(dst + 2, &qh, sizeof qh);
        pack_nibbles(levels, dst + 6);
    }
}

void quantize_q5_1(const float* src, uint8_t* dst, int64_t n) {
    int levels[kLegacyBlock];
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kQ5_1Bytes) {
        quantize_affine(src, 31, dst, dst + 2, levels);
        const uint32_t qh = high_bits(levels);
        std::memcpy(dst + 4, &qh, sizeof qh);
        pack_nibbles(levels, dst + 8);
    }
}

void quantize_q8_0(const float* src, uint8_t* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kQ8_0Bytes) {
        float amax = 0.0f;
        for (int j = 0; j < kLegacyBlock; ++j) amax = std::max(amax, std::fabs(src[j]));  // NaN ignored
        const float id = inverse_or_zero(store_f16(dst, amax / 127.0f));
        for (int j = 0; j < kLegacyBlock; ++j)
            dst[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(round_clamped(src[j] * id, -127, 127)));
    }
}

}  // namespace snapdoc::quant
