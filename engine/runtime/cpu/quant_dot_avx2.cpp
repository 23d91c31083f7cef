// AVX2 kernels for quant_dot (quant_dot.h). Weights are unpacked to bytes in registers and
// multiplied with the 8-bit activations by maddubs (u8 × s8 → pairs summed in i16) and madd; the
// 32-value types use AVX-VNNI / AVX-512 VNNI dpbusd instead when the compiler targets it. Unsigned
// level offsets (−8, −16, −32, −4) and sub-block mins are applied once per block through the
// activation's precomputed sums, so the inner loops are pure multiply-adds. Signed levels (Q8_0,
// IQ4) use the sign trick: |w| · (x · sign w).
//
// No i16 lane can saturate: the largest pair sum is 2 · 128 · 127 (Q8_0 / IQ4: |w| ≤ 128, |x| ≤ 127).
#include "engine/runtime/cpu/quant_dot.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define SNAPDOC_QUANT_AVX2 1
#include <immintrin.h>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#endif

namespace snapdoc::cpu {

#ifdef SNAPDOC_QUANT_AVX2
namespace {

using namespace quant;

inline float half(const uint8_t* p) { return _cvtsh_ss(load_u16(p)); }
inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline __m256i srl16(__m256i v, int bits) { return _mm256_srl_epi16(v, _mm_cvtsi32_si128(bits)); }

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline int hsum(__m128i v) {
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4E));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xB1));
    return _mm_cvtsi128_si32(v);
}

// Sums of each 4 consecutive u8 × s8 products, as 8 i32.
inline __m256i dot_u8s8(__m256i u, __m256i s) {
#if defined(__AVXVNNI__)
    return _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), u, s);
#elif defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

// Signed weights: |w| as u8 (−128 reads as 128) times x with w's sign.
inline __m256i dot_s8s8(__m256i w, __m256i x) { return dot_u8s8(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)); }

// 16 packed bytes → 32 nibbles: low nibbles (values 0..15) then high nibbles (values 16..31).
inline __m256i nibbles_32(const uint8_t* qs) {
    const __m128i q = load128(qs);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), _mm256_set1_epi8(0x0F));
}

// Bit j of `bits` → 0x10 in byte j (the fifth bit of Q5_0 / Q5_1 levels).
inline __m256i fifth_bits(uint32_t bits) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                                            3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), spread);
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit), _mm256_set1_epi8(0x10));
}

inline __m256i iq4_table() {
    return _mm256_broadcastsi128_si256(load128(kIq4Values.data()));
}

// [s[g] ×8, s[g+1] ×8] as i16, from 16 i8 scales: the scales of two 16-value groups, matching the
// i16 lanes maddubs makes from 32 activation bytes.
inline __m256i pair_scales(__m128i s8, int g) {
    const long long rep = 0x0101010101010101ll;
    return _mm256_cvtepi8_epi16(_mm_shuffle_epi8(s8, _mm_set_epi64x(rep * (g + 1), rep * g)));
}

// ---- 32-value blocks. Each kind gives the levels as bytes and the per-block offset term
// (what x = d * level + offset contributes through Σ activation).
struct Q4_0Kind {
    static constexpr int kBytes = kQ4_0Bytes;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return nibbles_32(b + 2); }
    static float offset(const uint8_t*, float d, const ActBlock32& a) { return -8.0f * d * a.d_sum; }
};
struct Q4_1Kind {
    static constexpr int kBytes = kQ4_1Bytes;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return nibbles_32(b + 4); }
    static float offset(const uint8_t* b, float, const ActBlock32& a) { return half(b + 2) * a.d_sum; }
};
struct Q5_0Kind {
    static constexpr int kBytes = kQ5_0Bytes;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return _mm256_or_si256(nibbles_32(b + 6), fifth_bits(load_u32(b + 2))); }
    static float offset(const uint8_t*, float d, const ActBlock32& a) { return -16.0f * d * a.d_sum; }
};
struct Q5_1Kind {
    static constexpr int kBytes = kQ5_1Bytes;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return _mm256_or_si256(nibbles_32(b + 8), fifth_bits(load_u32(b + 4))); }
    static float offset(const uint8_t* b, float, const ActBlock32& a) { return half(b + 2) * a.d_sum; }
};
struct Q8_0Kind {
    static constexpr int kBytes = kQ8_0Bytes;
    static constexpr bool kSigned = true;
    static __m256i levels(const uint8_t* b) { return load256(b + 2); }
    static float offset(const uint8_t*, float, const ActBlock32&) { return 0.0f; }
};
struct Iq4NlKind {
    static constexpr int kBytes = kIq4NlBytes;
    static constexpr bool kSigned = true;
    static __m256i levels(const uint8_t* b) { return _mm256_shuffle_epi8(iq4_table(), nibbles_32(b + 2)); }
    static float offset(const uint8_t*, float, const ActBlock32&) { return 0.0f; }
};

template <class K>
inline void block32(const uint8_t* b, const ActBlock32& a, __m256& acc, float& off) {
    const float d = half(b);
    const __m256i w = K::levels(b);
    const __m256i x = load256(a.q);
    const __m256i p = K::kSigned ? dot_s8s8(w, x) : dot_u8s8(w, x);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(d * a.d), acc);
    off += K::offset(b, d, a);
}

template <class K>
float dot32(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock32*>(act);
    const int64_t nb = n / 32;
    // Two independent chains so consecutive blocks overlap in the FMA pipeline.
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    float off0 = 0.0f, off1 = 0.0f;
    int64_t b = 0;
    for (; b + 1 < nb; b += 2) {
        block32<K>(row + b * K::kBytes, a[b], acc0, off0);
        block32<K>(row + (b + 1) * K::kBytes, a[b + 1], acc1, off1);
    }
    if (b < nb) block32<K>(row + b * K::kBytes, a[b], acc0, off0);
    return hsum(_mm256_add_ps(acc0, acc1)) + off0 + off1;
}

// ---- 256-value super-blocks.

// Σ_g min[g] · (activation sum of 32-value sub-block g), mins as 8 bytes (Q4_K / Q5_K).
inline int mins_dot_32(const uint8_t* mins8, const ActBlock256& a) {
    const __m128i sums = _mm_hadd_epi16(load128(a.sums16), load128(a.sums16 + 8));
    const __m128i mins = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(mins8)));
    return hsum(_mm_madd_epi16(mins, sums));
}

// Σ_g s[g] · (activation sum of 16-value group g) as 8 i32, s as 16 i8.
inline __m256i scales_dot_16(__m128i s8, const ActBlock256& a) {
    return _mm256_madd_epi16(_mm256_cvtepi8_epi16(s8), load256(a.sums16));
}

float dot_q4_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    float off = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += kQ4_KBytes) {
        const ActBlock256& x = a[b];
        const ScaleMin8 sm = unpack_scale_min_k4(row + q4k::kScales);
        off += half(row + q4k::kDmin) * x.d * static_cast<float>(mins_dot_32(sm.min, x));
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; ++c) {
            const __m256i q = load256(row + q4k::kQs + 32 * c);
            const __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            const __m256i p_lo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(x.q + 64 * c)),
                                                   _mm256_set1_epi16(sm.scale[2 * c]));
            const __m256i p_hi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(x.q + 64 * c + 32)),
                                                   _mm256_set1_epi16(sm.scale[2 * c + 1]));
            sum = _mm256_add_epi32(sum, _mm256_add_epi32(p_lo, p_hi));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q4k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc) - off;
}

float dot_q5_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i m4 = _mm256_set1_epi8(0x0F), bit4 = _mm256_set1_epi8(0x10);
    __m256 acc = _mm256_setzero_ps();
    float off = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += kQ5_KBytes) {
        const ActBlock256& x = a[b];
        const ScaleMin8 sm = unpack_scale_min_k4(row + q5k::kScales);
        off += half(row + q5k::kDmin) * x.d * static_cast<float>(mins_dot_32(sm.min, x));
        const __m256i qh = load256(row + q5k::kQh);
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; ++c) {
            const __m256i q = load256(row + q5k::kQs + 32 * c);
            const __m256i h = srl16(qh, 2 * c);  // bit 0: fifth bit of the low half, bit 1: of the high half
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(q, m4), _mm256_and_si256(_mm256_slli_epi16(h, 4), bit4));
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4),
                                               _mm256_and_si256(_mm256_slli_epi16(h, 3), bit4));
            const __m256i p_lo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(x.q + 64 * c)),
                                                   _mm256_set1_epi16(sm.scale[2 * c]));
            const __m256i p_hi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(x.q + 64 * c + 32)),
                                                   _mm256_set1_epi16(sm.scale[2 * c + 1]));
            sum = _mm256_add_epi32(sum, _mm256_add_epi32(p_lo, p_hi));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q5k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc) - off;
}

float dot_q6_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x30);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t b = 0; b < n / 256; ++b, row += kQ6_KBytes) {
        const ActBlock256& x = a[b];
        const __m128i s8 = load128(row + q6k::kScales);
        __m256i sum = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i ql0 = load256(row + q6k::kQl + 64 * h), ql1 = load256(row + q6k::kQl + 64 * h + 32);
            const __m256i qh = load256(row + q6k::kQh + 32 * h);
            const __m256i q[4] = {
                _mm256_or_si256(_mm256_and_si256(ql0, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), m2)),
                _mm256_or_si256(_mm256_and_si256(ql1, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), m2)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4), _mm256_and_si256(qh, m2)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4),
                                _mm256_and_si256(_mm256_srli_epi16(qh, 2), m2)),
            };
            for (int k = 0; k < 4; ++k) {
                const __m256i p = _mm256_maddubs_epi16(q[k], load256(x.q + 128 * h + 32 * k));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(p, pair_scales(s8, 8 * h + 2 * k)));
            }
        }
        // Levels are stored +32: subtract 32 · Σ_g s[g] · sums16[g].
        sum = _mm256_sub_epi32(sum, _mm256_slli_epi32(scales_dot_16(s8, x), 5));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q6k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

float dot_q3_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i m2 = _mm256_set1_epi8(3), m1 = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    alignas(16) int8_t scales[16];
    for (int64_t b = 0; b < n / 256; ++b, row += kQ3_KBytes) {
        const ActBlock256& x = a[b];
        unpack_q3k_scales(row + q3k::kScales, scales);
        const __m128i s8 = load128(scales);
        const __m256i hm = load256(row + q3k::kHmask);
        __m256i sum = _mm256_setzero_si256();
        for (int half_i = 0; half_i < 2; ++half_i) {
            const __m256i q = load256(row + q3k::kQs + 32 * half_i);
            for (int j = 0; j < 4; ++j) {
                // level + 4 = two low bits + 4 · high bit (0..7)
                const __m256i low = _mm256_and_si256(srl16(q, 2 * j), m2);
                const __m256i high = _mm256_slli_epi16(_mm256_and_si256(srl16(hm, 4 * half_i + j), m1), 2);
                const __m256i p = _mm256_maddubs_epi16(_mm256_or_si256(low, high), load256(x.q + 128 * half_i + 32 * j));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(p, pair_scales(s8, 8 * half_i + 2 * j)));
            }
        }
        sum = _mm256_sub_epi32(sum, _mm256_slli_epi32(scales_dot_16(s8, x), 2));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q3k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

float dot_q2_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i m2 = _mm256_set1_epi8(3);
    const __m128i m4 = _mm_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    float off = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += kQ2_KBytes) {
        const ActBlock256& x = a[b];
        const __m128i packed = load128(row + q2k::kScales);
        const __m128i s8 = _mm_and_si128(packed, m4), mins8 = _mm_and_si128(_mm_srli_epi16(packed, 4), m4);
        const __m256i mins = scales_dot_16(mins8, x);
        off += half(row + q2k::kDmin) * x.d *
               static_cast<float>(hsum(_mm_add_epi32(_mm256_castsi256_si128(mins), _mm256_extracti128_si256(mins, 1))));
        __m256i sum = _mm256_setzero_si256();
        for (int half_i = 0; half_i < 2; ++half_i) {
            const __m256i q = load256(row + q2k::kQs + 32 * half_i);
            for (int j = 0; j < 4; ++j) {
                const __m256i p = _mm256_maddubs_epi16(_mm256_and_si256(srl16(q, 2 * j), m2),
                                                       load256(x.q + 128 * half_i + 32 * j));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(p, pair_scales(s8, 8 * half_i + 2 * j)));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q2k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc) - off;
}

float dot_iq4_xs(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m256i table = iq4_table();
    __m256 acc = _mm256_setzero_ps();
    for (int64_t b = 0; b < n / 256; ++b, row += kIq4XsBytes) {
        const ActBlock256& x = a[b];
        __m256i sum = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ++ib) {
            const __m256i w = _mm256_shuffle_epi8(table, nibbles_32(row + iq4xs::kQs + 16 * ib));
            const __m256i xs = load256(x.q + 32 * ib);
            const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(xs, w));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(p, _mm256_set1_epi16(static_cast<int16_t>(iq4xs_scale(row, ib)))));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + iq4xs::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

}  // namespace
#endif

QuantDotFn quant_dot_simd(DType t) {
#ifdef SNAPDOC_QUANT_AVX2
    switch (t) {
        case DType::Q4_0: return dot32<Q4_0Kind>;
        case DType::Q4_1: return dot32<Q4_1Kind>;
        case DType::Q5_0: return dot32<Q5_0Kind>;
        case DType::Q5_1: return dot32<Q5_1Kind>;
        case DType::Q8_0: return dot32<Q8_0Kind>;
        case DType::IQ4_NL: return dot32<Iq4NlKind>;
        case DType::Q2_K: return dot_q2_k;
        case DType::Q3_K: return dot_q3_k;
        case DType::Q4_K: return dot_q4_k;
        case DType::Q5_K: return dot_q5_k;
        case DType::Q6_K: return dot_q6_k;
        case DType::IQ4_XS: return dot_iq4_xs;
        default: return nullptr;
    }
#else
    (void)t;
    return nullptr;
#endif
}

}  // namespace snapdoc::cpu
