// Small shared pieces of the simple quantizers (quantize_* in quant_rows.h): scale encoding and
// rounding that never hits undefined float-to-int conversions, whatever the input (NaN, inf).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/model/dtype.h"

namespace snapdoc::quant {

// Rounds v to the nearest integer in [lo, hi]; NaN becomes 0 (clamped).
inline int round_clamped(float v, int lo, int hi) {
    if (!(v == v)) return std::clamp(0, lo, hi);
    const float c = std::clamp(v, static_cast<float>(lo), static_cast<float>(hi));
    return static_cast<int>(std::lround(c));
}

// The element of largest magnitude (its sign kept), ignoring NaN; 0 for an all-NaN/zero input.
inline float signed_absmax(const float* x, int n) {
    float best = 0.0f, amax = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float a = std::fabs(x[i]);
        if (a > amax) {
            amax = a;
            best = x[i];
        }
    }
    return best;
}

// Stores `scale` as f16 at dst and returns the value actually stored, so values are quantized
// against the scale a reader will see.
inline float store_f16(uint8_t* dst, float scale) {
    if (!std::isfinite(scale)) scale = 0.0f;
    scale = std::clamp(scale, -65504.0f, 65504.0f);  // saturate: an infinite scale would decode as NaN
    const uint16_t h = f32_to_f16(scale);
    std::memcpy(dst, &h, sizeof h);
    return f16_to_f32(h);
}

inline float inverse_or_zero(float d) {
    return d != 0.0f && std::isfinite(d) ? 1.0f / d : 0.0f;
}

}  // namespace snapdoc::quant
