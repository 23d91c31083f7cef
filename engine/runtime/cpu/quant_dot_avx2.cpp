// AVX2 kernels for quant_dot (quant_dot.h), compiled three times (engine/CMakeLists.txt) with the
// target flags of one kernel level each: avx2 (maddubs + madd), avxvnni (VEX dpbusd) and avx512vnni
// (EVEX dpbusd on 256-bit vectors); SNAPDOC_QUANT_DOT_VARIANT names the level's namespace, and
// quant_dot_portable.cpp picks the variant of the active level at run time. Weights are unpacked to bytes in registers and
// multiplied with the 8-bit activations by maddubs (u8 × s8 → pairs summed in i16) and madd; the
// 32-value types use AVX-VNNI / AVX-512 VNNI dpbusd instead when the compiler targets it. Unsigned
// level offsets (−8, −16, −32, −4) and sub-block mins are applied once per block through the
// activation's precomputed sums, so the inner loops are pure multiply-adds. Signed levels (Q8_0,
// IQ4) use the sign trick: |w| · (x · sign w).
//
// No i16 lane can saturate: the largest pair sum is 2 · 128 · 127 (Q8_0 / IQ4: |w| ≤ 128, |x| ≤ 127).
#include "engine/runtime/cpu/quant_dot.h"

#include "engine/runtime/cpu/quant_dot_variants.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define SNAPDOC_QUANT_AVX2 1
#include <immintrin.h>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_dot_x86.h"
#endif

namespace snapdoc::cpu::SNAPDOC_QUANT_DOT_VARIANT {

#ifdef SNAPDOC_QUANT_AVX2
namespace {

using namespace quant;

using quant_dot_x86::half;
using quant_dot_x86::hsum;
using quant_dot_x86::mins_dot_32;

inline __m256i load256(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
inline __m128i load128(const void* p) {
    return _mm_loadu_si128(static_cast<const __m128i*>(p));
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
inline __m256i dot_s8s8(__m256i w, __m256i x) {
    return dot_u8s8(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w));
}

// 16 packed bytes → 32 nibbles: low nibbles (values 0..15) then high nibbles (values 16..31).
inline __m256i nibbles_32(const uint8_t* qs) {
    const __m256i q = _mm256_broadcastsi128_si256(load128(qs));
    return _mm256_and_si256(_mm256_srlv_epi64(q, _mm256_set_epi64x(4, 4, 0, 0)), _mm256_set1_epi8(0x0F));
}

// An f16 scale broadcast to 8 float lanes (no scalar round trip).
inline __m256 half8(const uint8_t* p) {
    return _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(load_u16(p))));
}

// Bit j of `bits` → 0x10 in byte j (the fifth bit of Q5_0 / Q5_1 levels).
inline __m256i fifth_bits(uint32_t bits) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,
                                            2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
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

// ---- 32-value blocks. Each kind gives the levels as bytes and how the block's offset enters:
// x = d * (level + kLevelOffset) for the symmetric kinds, x = d * level + m (the f16 at kMinAt) for
// Q4_1 / Q5_1. Either way the offset reaches the dot through the activation's d * Σq.
struct Q4_0Kind {
    static constexpr int kBytes = kQ4_0Bytes, kMinAt = -1;
    static constexpr float kLevelOffset = -8.0f;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return nibbles_32(b + 2); }
};
struct Q4_1Kind {
    static constexpr int kBytes = kQ4_1Bytes, kMinAt = 2;
    static constexpr float kLevelOffset = 0.0f;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) { return nibbles_32(b + 4); }
};
struct Q5_0Kind {
    static constexpr int kBytes = kQ5_0Bytes, kMinAt = -1;
    static constexpr float kLevelOffset = -16.0f;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) {
        return _mm256_or_si256(nibbles_32(b + 6), fifth_bits(load_u32(b + 2)));
    }
};
struct Q5_1Kind {
    static constexpr int kBytes = kQ5_1Bytes, kMinAt = 2;
    static constexpr float kLevelOffset = 0.0f;
    static constexpr bool kSigned = false;
    static __m256i levels(const uint8_t* b) {
        return _mm256_or_si256(nibbles_32(b + 8), fifth_bits(load_u32(b + 4)));
    }
};
struct Q8_0Kind {
    static constexpr int kBytes = kQ8_0Bytes, kMinAt = -1;
    static constexpr float kLevelOffset = 0.0f;
    static constexpr bool kSigned = true;
    static __m256i levels(const uint8_t* b) { return load256(b + 2); }
};
struct Iq4NlKind {
    static constexpr int kBytes = kIq4NlBytes, kMinAt = -1;
    static constexpr float kLevelOffset = 0.0f;
    static constexpr bool kSigned = true;
    static __m256i levels(const uint8_t* b) { return _mm256_shuffle_epi8(iq4_table(), nibbles_32(b + 2)); }
};

// One block: acc += d_w · d_x · Σ level·q (8 lanes); off += (d_w or m_w) · d_x·Σq (all 8 lanes
// equal; the caller reads one lane).
template <class K>
inline void block32(const uint8_t* b, const ActBlock32& a, __m256& acc, __m256& off) {
    const __m256i w = K::levels(b);
    const __m256i x = load256(a.q);
    const __m256i p = K::kSigned ? dot_s8s8(w, x) : dot_u8s8(w, x);
    const __m256 d = half8(b);
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(a.d)), d, acc);
    if constexpr (K::kMinAt >= 0) {
        off = _mm256_fmadd_ps(half8(b + K::kMinAt), _mm256_set1_ps(a.d_sum), off);
    } else if constexpr (K::kLevelOffset != 0.0f) {
        off = _mm256_fmadd_ps(d, _mm256_set1_ps(a.d_sum), off);
    }
}

template <class K>
float dot32(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock32*>(act);
    const int64_t nb = n / 32;
    // Two independent chains so consecutive blocks overlap in the FMA pipeline.
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 off0 = _mm256_setzero_ps(), off1 = _mm256_setzero_ps();
    int64_t b = 0;
    for (; b + 1 < nb; b += 2) {
        block32<K>(row + b * K::kBytes, a[b], acc0, off0);
        block32<K>(row + (b + 1) * K::kBytes, a[b + 1], acc1, off1);
    }
    if (b < nb) block32<K>(row + b * K::kBytes, a[b], acc0, off0);
    const float off = _mm256_cvtss_f32(_mm256_add_ps(off0, off1));
    return hsum(_mm256_add_ps(acc0, acc1)) + (K::kMinAt >= 0 ? off : K::kLevelOffset * off);
}

// ---- 256-value super-blocks.

// Σ_g s[g] · (activation sum of 16-value group g) as 8 i32, s as 16 i8.
inline __m256i scales_dot_16(__m128i s8, const ActBlock256& a) {
    return _mm256_madd_epi16(_mm256_cvtepi8_epi16(s8), load256(a.sums16));
}

// The 8 six-bit sub-block scales of a Q4_K / Q5_K super-block as i16, in both 128-bit lanes.
inline __m256i k4_scales16(const ScaleMin8& sm) {
    return _mm256_broadcastsi128_si256(
        _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(sm.scale))));
}

// Scale J of k4_scales16 in all 16 i16 lanes (one shuffle, a constant mask).
template <int J>
inline __m256i k4_scale(__m256i scales16) {
    return _mm256_shuffle_epi8(scales16, _mm256_set1_epi16(static_cast<short>(((2 * J + 1) << 8) | (2 * J))));
}

// Chunk C (values 64C..64C+63) of a Q4_K / Q5_K super-block: low nibbles of qs for the first 32,
// high nibbles for the next; Q5_K adds the fifth bit from qh (bit 2C for the low half, 2C + 1 for
// the high half). The two formats share every offset except where qs starts.
template <int C, bool kFive>
inline __m256i k4_chunk(const uint8_t* row, __m256i qh, const ActBlock256& x, __m256i scales16) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i q = load256(row + (kFive ? q5k::kQs : q4k::kQs) + 32 * C);
    __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
    if constexpr (kFive) {
        const __m256i bit4 = _mm256_set1_epi8(0x10);
        const __m256i h = _mm256_srli_epi16(qh, 2 * C);
        lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_slli_epi16(h, 4), bit4));
        hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_slli_epi16(h, 3), bit4));
    }
    const __m256i p_lo =
        _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(x.q + 64 * C)), k4_scale<2 * C>(scales16));
    const __m256i p_hi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(x.q + 64 * C + 32)),
                                           k4_scale<2 * C + 1>(scales16));
    return _mm256_add_epi32(p_lo, p_hi);
}

template <bool kFive>
float dot_k4(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    __m256 acc = _mm256_setzero_ps();
    float off = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += kFive ? kQ5_KBytes : kQ4_KBytes) {
        const ActBlock256& x = a[b];
        const ScaleMin8 sm = unpack_scale_min_k4(row + q4k::kScales);
        off += half(row + q4k::kDmin) * x.d * static_cast<float>(mins_dot_32(sm.min, x));
        const __m256i sc = k4_scales16(sm);
        const __m256i qh = kFive ? load256(row + q5k::kQh) : _mm256_setzero_si256();
        const __m256i sum = _mm256_add_epi32(
            _mm256_add_epi32(k4_chunk<0, kFive>(row, qh, x, sc), k4_chunk<1, kFive>(row, qh, x, sc)),
            _mm256_add_epi32(k4_chunk<2, kFive>(row, qh, x, sc), k4_chunk<3, kFive>(row, qh, x, sc)));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q4k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
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

// Q2_K / Q3_K: plane J (bit shift 2J) of the 128-value half H; the 32 values are two 16-value
// groups, scaled by s8[8H + 2J] and s8[8H + 2J + 1]. Q3_K adds its high bit (bit 4H + J of hmask)
// as +4, so the level is 0..7 (stored value + 4).
template <int H, int J, bool kHighBit>
inline __m256i two_bit_plane(__m256i q, __m256i hm, const ActBlock256& x, __m128i s8) {
    __m256i level = _mm256_and_si256(_mm256_srli_epi16(q, 2 * J), _mm256_set1_epi8(3));
    if constexpr (kHighBit) {
        const __m256i high = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * H + J), _mm256_set1_epi8(1));
        level = _mm256_or_si256(level, _mm256_slli_epi16(high, 2));
    }
    const __m256i p = _mm256_maddubs_epi16(level, load256(x.q + 128 * H + 32 * J));
    return _mm256_madd_epi16(p, pair_scales(s8, 8 * H + 2 * J));
}

template <int H, bool kHighBit>
inline __m256i two_bit_half(const uint8_t* qs, __m256i hm, const ActBlock256& x, __m128i s8) {
    const __m256i q = load256(qs + 32 * H);
    return _mm256_add_epi32(_mm256_add_epi32(two_bit_plane<H, 0, kHighBit>(q, hm, x, s8),
                                             two_bit_plane<H, 1, kHighBit>(q, hm, x, s8)),
                            _mm256_add_epi32(two_bit_plane<H, 2, kHighBit>(q, hm, x, s8),
                                             two_bit_plane<H, 3, kHighBit>(q, hm, x, s8)));
}

float dot_q3_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    __m256 acc = _mm256_setzero_ps();
    alignas(16) uint8_t biased[16];
    for (int64_t b = 0; b < n / 256; ++b, row += kQ3_KBytes) {
        const ActBlock256& x = a[b];
        unpack_q3k_scales_biased(row + q3k::kScales, biased);
        const __m128i s8 = _mm_sub_epi8(load128(biased), _mm_set1_epi8(32));
        const __m256i hm = load256(row + q3k::kHmask);
        __m256i sum = _mm256_add_epi32(two_bit_half<0, true>(row + q3k::kQs, hm, x, s8),
                                       two_bit_half<1, true>(row + q3k::kQs, hm, x, s8));
        sum = _mm256_sub_epi32(sum, _mm256_slli_epi32(scales_dot_16(s8, x), 2));  // levels are stored +4
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q3k::kD) * x.d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

float dot_q2_k(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m128i m4 = _mm_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    float off = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += kQ2_KBytes) {
        const ActBlock256& x = a[b];
        const __m128i packed = load128(row + q2k::kScales);
        const __m128i s8 = _mm_and_si128(packed, m4), mins8 = _mm_and_si128(_mm_srli_epi16(packed, 4), m4);
        const __m256i mins = scales_dot_16(mins8, x);
        off += half(row + q2k::kDmin) * x.d *
               static_cast<float>(
                   hsum(_mm_add_epi32(_mm256_castsi256_si128(mins), _mm256_extracti128_si256(mins, 1))));
        const __m256i none = _mm256_setzero_si256();
        const __m256i sum = _mm256_add_epi32(two_bit_half<0, false>(row + q2k::kQs, none, x, s8),
                                             two_bit_half<1, false>(row + q2k::kQs, none, x, s8));
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
            sum = _mm256_add_epi32(
                sum, _mm256_madd_epi16(p, _mm256_set1_epi16(static_cast<int16_t>(iq4xs_scale(row, ib)))));
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
        case DType::Q4_0:
            return dot32<Q4_0Kind>;
        case DType::Q4_1:
            return dot32<Q4_1Kind>;
        case DType::Q5_0:
            return dot32<Q5_0Kind>;
        case DType::Q5_1:
            return dot32<Q5_1Kind>;
        case DType::Q8_0:
            return dot32<Q8_0Kind>;
        case DType::IQ4_NL:
            return dot32<Iq4NlKind>;
        case DType::Q2_K:
            return dot_q2_k;
        case DType::Q3_K:
            return dot_q3_k;
        case DType::Q4_K:
            return dot_k4<false>;
        case DType::Q5_K:
            return dot_k4<true>;
        case DType::Q6_K:
            return dot_q6_k;
        case DType::IQ4_XS:
            return dot_iq4_xs;
        default:
            return nullptr;
    }
#else
    (void)t;
    return nullptr;
#endif
}

}  // namespace snapdoc::cpu::SNAPDOC_QUANT_DOT_VARIANT
