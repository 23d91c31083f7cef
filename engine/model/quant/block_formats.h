// Byte layouts of the GGML block-quantized tensor types, as ggml defines them (ggml-common.h,
// ggml-quants.c), shared by the row (de)quantizers here and the CPU dot kernels.
//
// Legacy types: blocks of 32 values, an f16 scale d (and f16 min m for the _1 types), then packed
// quants; byte j of qs holds value j in its low nibble and value j + 16 in its high nibble.
//   Q4_0  d, qs[16]                x = d * (q - 8)
//   Q4_1  d, m, qs[16]             x = d * q + m
//   Q5_0  d, qh[4], qs[16]         x = d * (q - 16), bit 4 of value j is bit j of qh (little-endian u32)
//   Q5_1  d, m, qh[4], qs[16]      x = d * q + m
//   Q8_0  d, qs[32] int8           x = d * q
//   IQ4_NL d, qs[16]               x = d * kIq4Values[q]
// K-quants: super-blocks of 256 values with small per-sub-block scales quantized against an f16 d:
//   Q2_K  scales[16] (low nibble scale, high nibble min, per 16 values), qs[64], d, dmin
//         x = d * sc * q - dmin * m, q 2 bits
//   Q3_K  hmask[32], qs[64], scales[12] (16 six-bit scales, minus 32), d
//         x = d * sc * (q - 4), q = 2 low bits + a high bit
//   Q4_K  d, dmin, scales[12] (8 six-bit scales + 8 six-bit mins, per 32 values), qs[128]
//   Q5_K  d, dmin, scales[12], qh[32], qs[128]           x = d * sc * q - dmin * m
//   Q6_K  ql[128], qh[64], scales[16] int8 (per 16 values), d     x = d * sc * (q - 32)
//   IQ4_XS d, scales_h (u16), scales_l[4] (8 six-bit scales minus 32, per 32 values), qs[128]
//         x = d * (ls - 32) * kIq4Values[q]
// Q2_K/Q3_K value e of a super-block lives in qs byte 32*(e/128) + e%32 at bit shift 2*((e%128)/32);
// Q3_K's high bit is bit (e/32) of hmask[e%32]. Q4_K/Q5_K store values 64c..64c+31 in the low nibbles
// of qs[32c..32c+31] and 64c+32.. in the high ones (Q5_K's fifth bit: bit 2c / 2c+1 of qh[e%32]).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace snapdoc::quant {

inline constexpr int kLegacyBlock = 32;  // values per legacy / IQ4_NL block
inline constexpr int kSuperBlock = 256;  // values per K-quant / IQ4_XS super-block

inline constexpr int kQ4_0Bytes = 18;
inline constexpr int kQ4_1Bytes = 20;
inline constexpr int kQ5_0Bytes = 22;
inline constexpr int kQ5_1Bytes = 24;
inline constexpr int kQ8_0Bytes = 34;
inline constexpr int kIq4NlBytes = 18;
inline constexpr int kQ2_KBytes = 84;
inline constexpr int kQ3_KBytes = 110;
inline constexpr int kQ4_KBytes = 144;
inline constexpr int kQ5_KBytes = 176;
inline constexpr int kQ6_KBytes = 210;
inline constexpr int kIq4XsBytes = 136;

// Byte offsets inside a K-quant super-block.
namespace q2k {
inline constexpr int kScales = 0, kQs = 16, kD = 80, kDmin = 82;
}
namespace q3k {
inline constexpr int kHmask = 0, kQs = 32, kScales = 96, kD = 108;
}
namespace q4k {
inline constexpr int kD = 0, kDmin = 2, kScales = 4, kQs = 16;
}
namespace q5k {
inline constexpr int kD = 0, kDmin = 2, kScales = 4, kQh = 16, kQs = 48;
}
namespace q6k {
inline constexpr int kQl = 0, kQh = 128, kScales = 192, kD = 208;
}
namespace iq4xs {
inline constexpr int kD = 0, kScalesH = 2, kScalesL = 4, kQs = 8;
}

// The 16 non-linear levels of IQ4_NL / IQ4_XS (ggml's kvalues_iq4nl): denser near zero, like the
// quantiles of a normal distribution.
inline constexpr std::array<int8_t, 16> kIq4Values = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                      1,    13,   25,  38,  53,  69,  89,  113};

inline uint16_t load_u16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline uint32_t load_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Q4_K / Q5_K: the 8 six-bit scales and 8 six-bit mins packed in 12 bytes. Sub-blocks 0..3 keep
// their 6 bits in bytes 0..3 (scale) and 4..7 (min); sub-blocks 4..7 keep their low 4 bits in
// bytes 8..11 (scale low nibble, min high nibble) and their top 2 bits in the top 2 bits of bytes
// 0..3 (scale) and 4..7 (min).
struct ScaleMin8 {
    uint8_t scale[8];
    uint8_t min[8];
};

inline ScaleMin8 unpack_scale_min_k4(const uint8_t* packed) {
    const uint32_t w0 = load_u32(packed), w1 = load_u32(packed + 4), w2 = load_u32(packed + 8);
    // Per byte: (b >> 6) << 4 is (b >> 2) & 0x30; the bits a 32-bit shift drags in from the
    // neighbouring byte fall outside the masks.
    const uint32_t sc_lo = w0 & 0x3f3f3f3fu;
    const uint32_t mn_lo = w1 & 0x3f3f3f3fu;
    const uint32_t sc_hi = (w2 & 0x0f0f0f0fu) | ((w0 >> 2) & 0x30303030u);
    const uint32_t mn_hi = ((w2 >> 4) & 0x0f0f0f0fu) | ((w1 >> 2) & 0x30303030u);
    ScaleMin8 r;
    std::memcpy(r.scale, &sc_lo, 4);
    std::memcpy(r.scale + 4, &sc_hi, 4);
    std::memcpy(r.min, &mn_lo, 4);
    std::memcpy(r.min + 4, &mn_hi, 4);
    return r;
}

// Q3_K: the 16 six-bit scales packed in 12 bytes: low nibbles in bytes 0..7 (scales 0..7 in the low
// nibbles, 8..15 in the high ones), top 2 bits in bytes 8..11 (scale k: bits 2*(k/4) of byte
// 8 + k%4). Writes the 16 scales still offset by +32 (subtract 32 for the signed value); four
// 32-bit operations per group of 4 rather than a loop over 16 bit fields (the dot kernel's hot path).
inline void unpack_q3k_scales_biased(const uint8_t* packed, uint8_t out[16]) {
    const uint32_t w0 = load_u32(packed), w1 = load_u32(packed + 4), w2 = load_u32(packed + 8);
    const uint32_t lo4 = 0x0f0f0f0fu, hi2 = 0x03030303u;
    const uint32_t s[4] = {(w0 & lo4) | ((w2 & hi2) << 4), (w1 & lo4) | (((w2 >> 2) & hi2) << 4),
                           ((w0 >> 4) & lo4) | (((w2 >> 4) & hi2) << 4),
                           ((w1 >> 4) & lo4) | (((w2 >> 6) & hi2) << 4)};
    std::memcpy(out, s, 16);
}

inline void unpack_q3k_scales(const uint8_t* packed, int8_t out[16]) {
    uint8_t biased[16];
    unpack_q3k_scales_biased(packed, biased);
    for (int k = 0; k < 16; ++k) out[k] = static_cast<int8_t>(biased[k] - 32);
}

// IQ4_XS: six-bit scale of sub-block ib (0..7), minus 32.
inline int iq4xs_scale(const uint8_t* block, int ib) {
    const int low = (block[iq4xs::kScalesL + ib / 2] >> (4 * (ib % 2))) & 0xF;
    const int high = (load_u16(block + iq4xs::kScalesH) >> (2 * ib)) & 3;
    return (low | (high << 4)) - 32;
}

}  // namespace snapdoc::quant
