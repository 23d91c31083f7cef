// The non-linear 4-bit types IQ4_NL (32-value blocks) and IQ4_XS (256-value super-blocks with 6-bit
// sub-block scales); both index the 16-level table kIq4Values (layouts in block_formats.h).
#include <algorithm>
#include <cmath>

#include "engine/model/quant/block_formats.h"
#include "engine/model/quant/quant_rows.h"
#include "engine/model/quant/quantize_helpers.h"

namespace snapdoc::quant {

namespace {

// Index of the table level nearest to v (v in units of the block scale); NaN maps to the level
// nearest zero.
int nearest_level(float v) {
    if (!(v == v)) v = 0.0f;
    int best = 0;
    float best_err = std::fabs(v - kIq4Values[0]);
    for (int i = 1; i < 16; ++i) {
        const float err = std::fabs(v - kIq4Values[i]);
        if (err < best_err) {
            best_err = err;
            best = i;
        }
    }
    return best;
}

// 32 values against scale d, packed like the legacy 4-bit blocks (value j low nibble of byte j,
// value j + 16 high nibble).
void pack_levels(const float* x, float d, uint8_t* qs) {
    const float id = inverse_or_zero(d);
    for (int j = 0; j < 16; ++j)
        qs[j] = static_cast<uint8_t>(nearest_level(x[j] * id) | (nearest_level(x[j + 16] * id) << 4));
}

void unpack_levels(const uint8_t* qs, float d, float* y) {
    for (int j = 0; j < 16; ++j) {
        y[j] = d * static_cast<float>(kIq4Values[qs[j] & 0xF]);
        y[j + 16] = d * static_cast<float>(kIq4Values[qs[j] >> 4]);
    }
}

// The scale that maps a block's largest-magnitude value onto the table's extreme level (-127).
float block_scale(const float* x) {
    return signed_absmax(x, 32) / static_cast<float>(kIq4Values[0]);
}

}  // namespace

void dequantize_iq4_nl(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kIq4NlBytes, dst += kLegacyBlock)
        unpack_levels(src + 2, f16_to_f32(load_u16(src)), dst);
}

void dequantize_iq4_xs(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kSuperBlock; ++b, src += kIq4XsBytes, dst += kSuperBlock) {
        const float d = f16_to_f32(load_u16(src + iq4xs::kD));
        for (int ib = 0; ib < 8; ++ib)
            unpack_levels(src + iq4xs::kQs + 16 * ib, d * static_cast<float>(iq4xs_scale(src, ib)),
                          dst + 32 * ib);
    }
}

void quantize_iq4_nl(const float* src, uint8_t* dst, int64_t n) {
    for (int64_t b = 0; b < n / kLegacyBlock; ++b, src += kLegacyBlock, dst += kIq4NlBytes)
        pack_levels(src, store_f16(dst, block_scale(src)), dst + 2);
}

void quantize_iq4_xs(const float* src, uint8_t* dst, int64_t n) {
    for (int64_t b = 0; b < n / kSuperBlock; ++b, src += kSuperBlock, dst += kIq4XsBytes) {
        float scale[8], smax = 0.0f;
        for (int ib = 0; ib < 8; ++ib) {
            scale[ib] = block_scale(src + 32 * ib);
            smax = std::max(smax, std::fabs(scale[ib]));
        }
        const float d = store_f16(dst + iq4xs::kD, smax / 31.0f);
        const float id = inverse_or_zero(d);
        uint16_t scales_h = 0;
        std::memset(dst + iq4xs::kScalesL, 0, 4);
        for (int ib = 0; ib < 8; ++ib) {
            const int ls = round_clamped(scale[ib] * id, -32, 31);
            const int u = ls + 32;  // 0..63
            dst[iq4xs::kScalesL + ib / 2] |= static_cast<uint8_t>((u & 0xF) << (4 * (ib % 2)));
            scales_h = static_cast<uint16_t>(scales_h | ((u >> 4) << (2 * ib)));
            pack_levels(src + 32 * ib, d * static_cast<float>(ls), dst + iq4xs::kQs + 16 * ib);
        }
        std::memcpy(dst + iq4xs::kScalesH, &scales_h, sizeof scales_h);
    }
}

}  // namespace snapdoc::quant
