// The K-quant super-block types: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K (layouts in block_formats.h).
#include <algorithm>
#include <cmath>

#include "engine/model/quant/block_formats.h"
#include "engine/model/quant/no_fp_contract.h"  // last: see there
#include "engine/model/quant/quant_rows.h"
#include "engine/model/quant/quantize_helpers.h"

namespace snapdoc::quant {

namespace {

constexpr int kQK = kSuperBlock;

float half_at(const uint8_t* p) {
    return f16_to_f32(load_u16(p));
}

// Q2_K / Q3_K: where the 2-bit field of value e (0..255) lives.
int two_bit_byte(int e) {
    return 32 * (e / 128) + e % 32;
}
int two_bit_shift(int e) {
    return 2 * ((e % 128) / 32);
}

// One sub-block of an affine quantizer: x ≈ scale * q - min with q in [0, max_level]. The range is
// widened to include 0 so the min is never negative (the formats store it unsigned).
void affine_range(const float* x, int n, int max_level, float& scale, float& min) {
    float lo = 0.0f, hi = 0.0f;
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(x[i])) continue;
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    scale = (hi - lo) / static_cast<float>(max_level);
    min = -lo;
}

// Quantizes `count` sub-block scales (all >= 0) to integers in [0, max_q] against a super-block
// scale stored as f16 at d_at. Returns the stored super-block scale.
float quantize_scales(const float* s, int count, int max_q, uint8_t* d_at, int* out) {
    float smax = 0.0f;
    for (int i = 0; i < count; ++i) smax = std::max(smax, s[i]);
    const float d = store_f16(d_at, smax / static_cast<float>(max_q));
    const float id = inverse_or_zero(d);
    for (int i = 0; i < count; ++i) out[i] = round_clamped(s[i] * id, 0, max_q);
    return d;
}

// Levels of n values against x ≈ dl * q - ml, q in [0, max_level].
void affine_levels(const float* x, int n, float dl, float ml, int max_level, int* q) {
    const float id = inverse_or_zero(dl);
    for (int i = 0; i < n; ++i) q[i] = round_clamped((x[i] + ml) * id, 0, max_level);
}

// Q4_K / Q5_K front half: 8 affine sub-blocks of 32 with 6-bit scales and mins packed as in
// unpack_scale_min_k4. Fills the 256 levels.
void quantize_k4_scales_and_levels(const float* x, int max_level, uint8_t* block, int* levels) {
    float scale[8], min[8];
    for (int j = 0; j < 8; ++j) affine_range(x + 32 * j, 32, max_level, scale[j], min[j]);
    int ls[8], lm[8];
    const float d = quantize_scales(scale, 8, 63, block + q4k::kD, ls);
    const float dmin = quantize_scales(min, 8, 63, block + q4k::kDmin, lm);
    uint8_t* sc = block + q4k::kScales;
    for (int j = 0; j < 4; ++j) {
        sc[j] = static_cast<uint8_t>(ls[j] | ((ls[j + 4] >> 4) << 6));
        sc[j + 4] = static_cast<uint8_t>(lm[j] | ((lm[j + 4] >> 4) << 6));
        sc[j + 8] = static_cast<uint8_t>((ls[j + 4] & 0xF) | ((lm[j + 4] & 0xF) << 4));
    }
    for (int j = 0; j < 8; ++j)
        affine_levels(x + 32 * j, 32, d * static_cast<float>(ls[j]), dmin * static_cast<float>(lm[j]),
                      max_level, levels + 32 * j);
}

// Symmetric sub-blocks of 16 (Q3_K, Q6_K): x ≈ d * ls * q, q in [-half, half - 1], ls a signed
// integer in [-max_ls - 1, max_ls]. Returns d (stored as f16 at d_at); fills ls[16] and levels.
float quantize_symmetric_16(const float* x, int half, int max_ls, uint8_t* d_at, int* ls, int* levels) {
    float scale[16], smax = 0.0f;
    for (int k = 0; k < 16; ++k) {
        scale[k] = signed_absmax(x + 16 * k, 16) / static_cast<float>(-half);
        smax = std::max(smax, std::fabs(scale[k]));
    }
    const float d = store_f16(d_at, smax / static_cast<float>(max_ls));
    const float id = inverse_or_zero(d);
    for (int k = 0; k < 16; ++k) {
        ls[k] = round_clamped(scale[k] * id, -max_ls - 1, max_ls);
        const float inv = inverse_or_zero(d * static_cast<float>(ls[k]));
        for (int i = 0; i < 16; ++i) levels[16 * k + i] = round_clamped(x[16 * k + i] * inv, -half, half - 1);
    }
    return d;
}

}  // namespace

void dequantize_q2_k(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kQK; ++b, src += kQ2_KBytes, dst += kQK) {
        const float d = half_at(src + q2k::kD), dmin = half_at(src + q2k::kDmin);
        const uint8_t* sc = src + q2k::kScales;
        const uint8_t* qs = src + q2k::kQs;
        for (int e = 0; e < kQK; ++e) {
            const int s = sc[e / 16];
            const float dl = d * static_cast<float>(s & 0xF), ml = dmin * static_cast<float>(s >> 4);
            const int q = (qs[two_bit_byte(e)] >> two_bit_shift(e)) & 3;
            dst[e] = dl * static_cast<float>(q) - ml;
        }
    }
}

void dequantize_q3_k(const uint8_t* src, float* dst, int64_t n) {
    int8_t scales[16];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQ3_KBytes, dst += kQK) {
        const float d = half_at(src + q3k::kD);
        unpack_q3k_scales(src + q3k::kScales, scales);
        const uint8_t* hm = src + q3k::kHmask;
        const uint8_t* qs = src + q3k::kQs;
        for (int e = 0; e < kQK; ++e) {
            const float dl = d * static_cast<float>(scales[e / 16]);
            const int low = (qs[two_bit_byte(e)] >> two_bit_shift(e)) & 3;
            const int high = (hm[e % 32] >> (e / 32)) & 1;
            dst[e] = dl * static_cast<float>(low - (high ? 0 : 4));
        }
    }
}

void dequantize_q4_k(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kQK; ++b, src += kQ4_KBytes, dst += kQK) {
        const float d = half_at(src + q4k::kD), dmin = half_at(src + q4k::kDmin);
        const ScaleMin8 sm = unpack_scale_min_k4(src + q4k::kScales);
        const uint8_t* qs = src + q4k::kQs;
        for (int c = 0; c < 4; ++c) {
            const float d1 = d * static_cast<float>(sm.scale[2 * c]),
                        m1 = dmin * static_cast<float>(sm.min[2 * c]);
            const float d2 = d * static_cast<float>(sm.scale[2 * c + 1]),
                        m2 = dmin * static_cast<float>(sm.min[2 * c + 1]);
            for (int l = 0; l < 32; ++l) {
                dst[64 * c + l] = d1 * static_cast<float>(qs[32 * c + l] & 0xF) - m1;
                dst[64 * c + 32 + l] = d2 * static_cast<float>(qs[32 * c + l] >> 4) - m2;
            }
        }
    }
}

void dequantize_q5_k(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kQK; ++b, src += kQ5_KBytes, dst += kQK) {
        const float d = half_at(src + q5k::kD), dmin = half_at(src + q5k::kDmin);
        const ScaleMin8 sm = unpack_scale_min_k4(src + q5k::kScales);
        const uint8_t* qh = src + q5k::kQh;
        const uint8_t* qs = src + q5k::kQs;
        for (int c = 0; c < 4; ++c) {
            const float d1 = d * static_cast<float>(sm.scale[2 * c]),
                        m1 = dmin * static_cast<float>(sm.min[2 * c]);
            const float d2 = d * static_cast<float>(sm.scale[2 * c + 1]),
                        m2 = dmin * static_cast<float>(sm.min[2 * c + 1]);
            for (int l = 0; l < 32; ++l) {
                const int lo = (qs[32 * c + l] & 0xF) + (((qh[l] >> (2 * c)) & 1) << 4);
                const int hi = (qs[32 * c + l] >> 4) + (((qh[l] >> (2 * c + 1)) & 1) << 4);
                dst[64 * c + l] = d1 * static_cast<float>(lo) - m1;
                dst[64 * c + 32 + l] = d2 * static_cast<float>(hi) - m2;
            }
        }
    }
}

void dequantize_q6_k(const uint8_t* src, float* dst, int64_t n) {
    for (int64_t b = 0; b < n / kQK; ++b, src += kQ6_KBytes, dst += kQK) {
        const float d = half_at(src + q6k::kD);
        const auto* sc = reinterpret_cast<const int8_t*>(src + q6k::kScales);
        for (int h = 0; h < 2; ++h) {
            const uint8_t* ql = src + q6k::kQl + 64 * h;
            const uint8_t* qh = src + q6k::kQh + 32 * h;
            float* y = dst + 128 * h;
            for (int l = 0; l < 32; ++l) {
                const int q[4] = {
                    (ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4), (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4),
                    (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4), (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)};
                for (int k = 0; k < 4; ++k) {
                    const int e = 32 * k + l;
                    y[e] = d * static_cast<float>(sc[8 * h + e / 16]) * static_cast<float>(q[k] - 32);
                }
            }
        }
    }
}

void quantize_q2_k(const float* src, uint8_t* dst, int64_t n) {
    int levels[kQK];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQK, dst += kQ2_KBytes) {
        std::memset(dst, 0, kQ2_KBytes);
        float scale[16], min[16];
        for (int k = 0; k < 16; ++k) affine_range(src + 16 * k, 16, 3, scale[k], min[k]);
        int ls[16], lm[16];
        const float d = quantize_scales(scale, 16, 15, dst + q2k::kD, ls);
        const float dmin = quantize_scales(min, 16, 15, dst + q2k::kDmin, lm);
        for (int k = 0; k < 16; ++k) {
            dst[q2k::kScales + k] = static_cast<uint8_t>(ls[k] | (lm[k] << 4));
            affine_levels(src + 16 * k, 16, d * static_cast<float>(ls[k]), dmin * static_cast<float>(lm[k]),
                          3, levels + 16 * k);
        }
        for (int e = 0; e < kQK; ++e)
            dst[q2k::kQs + two_bit_byte(e)] |= static_cast<uint8_t>(levels[e] << two_bit_shift(e));
    }
}

void quantize_q3_k(const float* src, uint8_t* dst, int64_t n) {
    int levels[kQK], ls[16];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQK, dst += kQ3_KBytes) {
        std::memset(dst, 0, kQ3_KBytes);
        quantize_symmetric_16(src, 4, 31, dst + q3k::kD, ls, levels);
        uint8_t* sc = dst + q3k::kScales;
        for (int k = 0; k < 16; ++k) {
            const int s = ls[k] + 32;  // 0..63
            sc[k % 8] |= static_cast<uint8_t>((s & 0xF) << (k < 8 ? 0 : 4));
            sc[8 + k % 4] |= static_cast<uint8_t>((s >> 4) << (2 * (k / 4)));
        }
        for (int e = 0; e < kQK; ++e) {
            const int u = levels[e] + 4;  // 0..7: two low bits, and the high bit set when u >= 4
            dst[q3k::kQs + two_bit_byte(e)] |= static_cast<uint8_t>((u & 3) << two_bit_shift(e));
            if (u >= 4) dst[q3k::kHmask + e % 32] |= static_cast<uint8_t>(1u << (e / 32));
        }
    }
}

void quantize_q4_k(const float* src, uint8_t* dst, int64_t n) {
    int levels[kQK];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQK, dst += kQ4_KBytes) {
        quantize_k4_scales_and_levels(src, 15, dst, levels);
        for (int c = 0; c < 4; ++c)
            for (int l = 0; l < 32; ++l)
                dst[q4k::kQs + 32 * c + l] =
                    static_cast<uint8_t>(levels[64 * c + l] | (levels[64 * c + 32 + l] << 4));
    }
}

void quantize_q5_k(const float* src, uint8_t* dst, int64_t n) {
    int levels[kQK];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQK, dst += kQ5_KBytes) {
        quantize_k4_scales_and_levels(src, 31, dst, levels);
        uint8_t* qh = dst + q5k::kQh;
        std::memset(qh, 0, 32);
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                const int lo = levels[64 * c + l], hi = levels[64 * c + 32 + l];
                dst[q5k::kQs + 32 * c + l] = static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
                qh[l] |= static_cast<uint8_t>(((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
            }
        }
    }
}

void quantize_q6_k(const float* src, uint8_t* dst, int64_t n) {
    int levels[kQK], ls[16];
    for (int64_t b = 0; b < n / kQK; ++b, src += kQK, dst += kQ6_KBytes) {
        quantize_symmetric_16(src, 32, 127, dst + q6k::kD, ls, levels);
        for (int k = 0; k < 16; ++k) dst[q6k::kScales + k] = static_cast<uint8_t>(static_cast<int8_t>(ls[k]));
        for (int h = 0; h < 2; ++h) {
            const int* q = levels + 128 * h;
            for (int l = 0; l < 32; ++l) {
                int u[4];
                for (int k = 0; k < 4; ++k) u[k] = q[32 * k + l] + 32;  // 0..63
                dst[q6k::kQl + 64 * h + l] = static_cast<uint8_t>((u[0] & 0xF) | ((u[2] & 0xF) << 4));
                dst[q6k::kQl + 64 * h + 32 + l] = static_cast<uint8_t>((u[1] & 0xF) | ((u[3] & 0xF) << 4));
                dst[q6k::kQh + 32 * h + l] = static_cast<uint8_t>((u[0] >> 4) | ((u[1] >> 4) << 2) |
                                                                  ((u[2] >> 4) << 4) | ((u[3] >> 4) << 6));
            }
        }
    }
}

}  // namespace snapdoc::quant
