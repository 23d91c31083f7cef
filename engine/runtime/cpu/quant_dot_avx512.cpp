// 512-bit decode dots for the K-quants (Q2_K … Q6_K). The 256-bit kernels
// of quant_dot_avx2.cpp are compute-bound for these types on an AVX-512 CPU (Llama-3.1-8B Q4_K_M
// decode ran at 48% of the bandwidth roofline, `dot_k4` and `dot_q6_k` half of the time): here each
// register holds 64 levels, so one maddubs + one dpwssd (with the sub-block scales spread over the
// lanes by one permute) covers what took two of each, plus two shuffles, at 256 bits.
// Compiled with its own AVX-512 BW/VL + VNNI target flags (engine/CMakeLists.txt), without GFNI (a
// Cascade Lake has VNNI but no GFNI), and used only at the avx512vnni kernel level (kernel_level.h);
// quant_dot_fn() prefers these to the level's 256-bit kernels; the Q4_K / Q5_K one reads
// its own activation layout (ActBlock256Nibbles), so decode_dot() pairs it with that format.
#include "engine/runtime/cpu/quant_dot_variants.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__F16C__)
#include <immintrin.h>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_dot_x86.h"

namespace snapdoc::cpu {

namespace {

using namespace quant;

using quant_dot_x86::half;
using quant_dot_x86::hsum;

// i16 lane l of the result = scales16[first + (l >> kLog2Lanes)]: one scale per 2^kLog2Lanes i16
// lanes (8: a Q6_K group of 16 levels).
template <int kLog2Lanes>
inline __m512i spread_scales(__m512i scales16, int first) {
    const __m512i lane = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
                                          12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i index = _mm512_add_epi16(_mm512_srli_epi16(lane, kLog2Lanes), _mm512_set1_epi16(static_cast<short>(first)));
    return _mm512_permutexvar_epi16(index, scales16);
}

// Q4_K's 12 packed bytes of six-bit sub-block scales and mins (unpack_scale_min_k4's bit layout) as
// bytes 0-7: the 8 scales, 8-15: the 8 mins, in vector registers: the scalar unpacking plus the
// moves into a vector register cost more than the whole 64-level multiply of a chunk.
inline __m128i scale_min_k4(const uint8_t* packed) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));  // w0 w1 w2 (+4 bytes)
    const __m128i low = _mm_and_si128(w, _mm_set1_epi8(0x3F));                    // sc_lo mn_lo
    const __m128i w2 = _mm_shuffle_epi32(w, 0xAA);
    const __m128i high = _mm_or_si128(_mm_and_si128(_mm_srlv_epi32(w2, _mm_setr_epi32(0, 4, 0, 4)), _mm_set1_epi8(0x0F)),
                                      _mm_and_si128(_mm_srli_epi32(w, 2), _mm_set1_epi8(0x30)));  // sc_hi mn_hi
    return _mm_unpacklo_epi32(low, high);
}

// One 64-byte load of Q4_K's packed nibbles as its high-nibble levels: a GF(2) affine byte transform
// is the shift and the mask in one instruction where the CPU has GFNI.
inline __m512i high_nibbles(__m512i packed) {
#if defined(__GFNI__)
    // Output bit i (i < 4) = input bit i + 4; the matrix's byte 7 - i selects the input bit of output bit i.
    return _mm512_gf2p8affine_epi64_epi8(packed, _mm512_set1_epi64(0x1020408000000000LL), 0);
#else
    return _mm512_and_si512(_mm512_srli_epi16(packed, 4), _mm512_set1_epi8(0x0F));
#endif
}

// Q4_K / Q5_K against an ActBlock256Nibbles activation: one 64-byte load of qs (values
// 128h..128h+127) is split into its low nibbles (sub-blocks 4h and 4h + 2, in the register's two
// 256-bit halves) and its high nibbles (4h + 1, 4h + 3), and the activation's levels are stored in
// that order. The sub-block scale of each i16 lane comes from one in-lane byte shuffle of the
// scales broadcast to every 128-bit lane; d and dmin are converted together, and the mins' term
// (against the activation's precomputed 32-value sums) stays in a vector accumulator, summed once
// at the end. Q5_K's fifth bit of value 64c + 32k + l is bit 2c + k of qh[l]: with qh in both
// halves of a register, one per-lane rotate brings each half's bit to bit 4 of its bytes (chunk
// c = 2h in the low half, 2h + 1 in the high one), and one ternary-logic op merges it.
template <bool kFive>
float dot_k4_512(const uint8_t* row, const void* act, int64_t n) {
    static_assert(q4k::kScales == q5k::kScales && q4k::kD == q5k::kD && q4k::kDmin == q5k::kDmin);
    constexpr int kBytes = kFive ? kQ5_KBytes : kQ4_KBytes, kQsAt = kFive ? q5k::kQs : q4k::kQs;
    const auto* a = static_cast<const ActBlock256Nibbles*>(act);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    // Byte shuffle controls: i16 lanes 0-15 take scale byte lo, 16-31 byte hi, high bytes zeroed.
    const auto spread = [](int lo, int hi) {
        return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(static_cast<short>(0x8000 | lo))),
                                  _mm256_set1_epi16(static_cast<short>(0x8000 | hi)), 1);
    };
    const __m512i spread_low[2] = {spread(0, 2), spread(4, 6)}, spread_high[2] = {spread(1, 3), spread(5, 7)};
    __m512 acc = _mm512_setzero_ps();
    __m128 acc_min = _mm_setzero_ps();
    // Rotate counts (mod 64) taking bit 2c + k of each byte to bit 4, per 256-bit half [c = 2h, 2h + 1].
    const auto rotations = [](int h, int k) {
        const auto to_bit4 = [](int bit) { return static_cast<long long>((4 - bit + 64) % 64); };
        return _mm512_inserti64x4(_mm512_set1_epi64(to_bit4(4 * h + k)), _mm256_set1_epi64x(to_bit4(4 * h + 2 + k)), 1);
    };
    const __m512i rot_low[2] = {rotations(0, 0), rotations(1, 0)}, rot_high[2] = {rotations(0, 1), rotations(1, 1)};
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    for (int64_t b = 0; b < n / kSuperBlock; ++b, row += kBytes) {
        const ActBlock256Nibbles& x = a[b];
        const __m128i sm = scale_min_k4(row + q4k::kScales);
        // [d, dmin] · the activation's scale, from the block's first 4 bytes.
        const __m128 dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(load_u32(row + q4k::kD)))),
                                     _mm_set1_ps(x.d));
        const __m128i mins = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(sm, 8)),
                                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.sums32)));
        acc_min = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, _MM_SHUFFLE(1, 1, 1, 1)), _mm_cvtepi32_ps(mins), acc_min);
        const __m512i scales = _mm512_broadcast_i32x4(sm);
        __m512i qh = _mm512_setzero_si512();
        if constexpr (kFive)
            qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + q5k::kQh)));
        __m512i sum = _mm512_setzero_si512();
        for (int h = 0; h < 2; ++h) {
            const __m512i packed = _mm512_loadu_si512(row + kQsAt + 64 * h);
            __m512i low_levels = _mm512_and_si512(packed, m4), high_levels = high_nibbles(packed);
            if constexpr (kFive) {
                // levels | (rotated qh & 0x10)
                low_levels = _mm512_ternarylogic_epi32(low_levels, _mm512_rolv_epi64(qh, rot_low[h]), bit4, 0xF8);
                high_levels = _mm512_ternarylogic_epi32(high_levels, _mm512_rolv_epi64(qh, rot_high[h]), bit4, 0xF8);
            }
            const __m512i low = _mm512_maddubs_epi16(low_levels, _mm512_loadu_si512(x.q + 128 * h));
            const __m512i high = _mm512_maddubs_epi16(high_levels, _mm512_loadu_si512(x.q + 128 * h + 64));
            sum = _mm512_dpwssd_epi32(sum, low, _mm512_shuffle_epi8(scales, spread_low[h]));
            sum = _mm512_dpwssd_epi32(sum, high, _mm512_shuffle_epi8(scales, spread_high[h]));
        }
        acc = _mm512_fmadd_ps(_mm512_broadcastss_ps(dd), _mm512_cvtepi32_ps(sum), acc);
    }
    return _mm512_reduce_add_ps(acc) - hsum(acc_min);
}

// Q6_K: half h (values 128h..128h+127): levels 0..63 of it are the low nibbles of ql[64h..64h+63]
// with bits 4-5 from qh[32h..] shifted left 4 (first 32) and 2 (next 32); levels 64..127 the high
// nibbles with qh shifted right 0 and 2. Levels are stored +32: 32·Σ scale·sums16 is subtracted.
float dot_q6_k_512(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    const __m512i m4 = _mm512_set1_epi8(0x0F), m2 = _mm512_set1_epi8(0x30);
    const __m512i up_shift = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i down_shift = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    __m512 acc = _mm512_setzero_ps();
    for (int64_t b = 0; b < n / kSuperBlock; ++b, row += kQ6_KBytes) {
        const ActBlock256& x = a[b];
        const __m128i s8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + q6k::kScales));
        const __m512i scales16 = _mm512_castsi256_si512(_mm256_cvtepi8_epi16(s8));
        __m512i sum = _mm512_setzero_si512();
        for (int h = 0; h < 2; ++h) {
            const __m512i ql = _mm512_loadu_si512(row + q6k::kQl + 64 * h);
            const __m512i qh = _mm512_broadcast_i64x4(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + q6k::kQh + 32 * h)));
            const __m512i first = _mm512_or_si512(_mm512_and_si512(ql, m4),
                                                  _mm512_and_si512(_mm512_sllv_epi16(qh, up_shift), m2));
            const __m512i second = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), m4),
                                                   _mm512_and_si512(_mm512_srlv_epi16(qh, down_shift), m2));
            const __m512i p0 = _mm512_maddubs_epi16(first, _mm512_loadu_si512(x.q + 128 * h));
            const __m512i p1 = _mm512_maddubs_epi16(second, _mm512_loadu_si512(x.q + 128 * h + 64));
            sum = _mm512_dpwssd_epi32(sum, p0, spread_scales<3>(scales16, 8 * h));
            sum = _mm512_dpwssd_epi32(sum, p1, spread_scales<3>(scales16, 8 * h + 4));
        }
        const __m256i offsets = _mm256_madd_epi16(_mm256_cvtepi8_epi16(s8),
                                                  _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.sums16)));
        sum = _mm512_sub_epi32(sum, _mm512_zextsi256_si512(_mm256_slli_epi32(offsets, 5)));
        acc = _mm512_fmadd_ps(_mm512_set1_ps(half(row + q6k::kD) * x.d), _mm512_cvtepi32_ps(sum), acc);
    }
    return _mm512_reduce_add_ps(acc);
}

// Q2_K / Q3_K: value 128h + 32j + l has its low 2 bits at shift 2j of qs[32h + l] (and, for Q3_K,
// its third bit at bit 4h + j of hmask[l]). One register takes planes j and j + 1 (values
// 128h + 32j .. + 63, contiguous in the activation): qs (and hmask) broadcast to both 256-bit
// halves, one per-lane shift (and one per-lane rotate, merged by one ternary-logic op) give each
// half its plane; the 16-value groups' scales are spread over the lanes by one permute.
//   Q3_K: signed 6-bit scales; levels stored +4, so 4·Σ scale·sums16 is subtracted.
//   Q2_K: 4-bit scales and mins (w = d·scale·q − dmin·min); the mins' term against the
//   activation's sums16 stays in a vector accumulator, summed once at the end.
template <bool kQ3>
float dot_two_bit_512(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    constexpr int kBytes = kQ3 ? kQ3_KBytes : kQ2_KBytes, kQsAt = kQ3 ? q3k::kQs : q2k::kQs;
    const __m512i m3 = _mm512_set1_epi8(3), bit2 = _mm512_set1_epi8(4);
    // Per 256-bit half [plane j, plane j + 1]: the right shift of the low bits, the rotate (mod 64)
    // taking bit 4h + j to bit 2.
    const auto per_half = [](long long lo, long long hi) {
        return _mm512_inserti64x4(_mm512_set1_epi64(lo), _mm256_set1_epi64x(hi), 1);
    };
    const auto to_bit2 = [](int bit) { return static_cast<long long>((2 - bit + 64) % 64); };
    const __m512i shift[2] = {per_half(0, 2), per_half(4, 6)};
    const __m512i rot[2][2] = {{per_half(to_bit2(0), to_bit2(1)), per_half(to_bit2(2), to_bit2(3))},
                               {per_half(to_bit2(4), to_bit2(5)), per_half(to_bit2(6), to_bit2(7))}};
    __m512 acc = _mm512_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    alignas(16) uint8_t biased[16];
    for (int64_t b = 0; b < n / kSuperBlock; ++b, row += kBytes) {
        const ActBlock256& x = a[b];
        const __m256i sums16 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.sums16));
        __m128i s8;
        __m512i hm = _mm512_setzero_si512();
        if constexpr (kQ3) {
            unpack_q3k_scales_biased(row + q3k::kScales, biased);
            s8 = _mm_sub_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(biased)), _mm_set1_epi8(32));
            hm = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + q3k::kHmask)));
        } else {
            const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + q2k::kScales));
            const __m128i m4 = _mm_set1_epi8(0x0F);
            s8 = _mm_and_si128(packed, m4);
            const __m256i mins = _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), m4)), sums16);
            acc_min = _mm256_fmadd_ps(_mm256_set1_ps(half(row + q2k::kDmin) * x.d), _mm256_cvtepi32_ps(mins), acc_min);
        }
        const __m512i scales16 = _mm512_castsi256_si512(_mm256_cvtepi8_epi16(s8));
        __m512i sum = _mm512_setzero_si512();
        for (int h = 0; h < 2; ++h) {
            const __m512i qs =
                _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + kQsAt + 32 * h)));
            for (int pair = 0; pair < 2; ++pair) {  // planes 2·pair and 2·pair + 1
                __m512i level = _mm512_and_si512(_mm512_srlv_epi64(qs, shift[pair]), m3);
                if constexpr (kQ3)  // level | (rotated hmask & 4)
                    level = _mm512_ternarylogic_epi32(level, _mm512_rolv_epi64(hm, rot[h][pair]), bit2, 0xF8);
                const __m512i p = _mm512_maddubs_epi16(level, _mm512_loadu_si512(x.q + 128 * h + 64 * pair));
                sum = _mm512_dpwssd_epi32(sum, p, spread_scales<3>(scales16, 8 * h + 4 * pair));
            }
        }
        if constexpr (kQ3) {  // levels are stored +4
            const __m256i offsets = _mm256_madd_epi16(_mm256_cvtepi8_epi16(s8), sums16);
            sum = _mm512_sub_epi32(sum, _mm512_zextsi256_si512(_mm256_slli_epi32(offsets, 2)));
        }
        acc = _mm512_fmadd_ps(_mm512_set1_ps(half(row + (kQ3 ? q3k::kD : q2k::kD)) * x.d), _mm512_cvtepi32_ps(sum),
                              acc);
    }
    return _mm512_reduce_add_ps(acc) - hsum(acc_min);
}

}  // namespace

QuantDotFn quant_dot_avx512(DType t) {
    switch (t) {
        case DType::Q2_K: return dot_two_bit_512<false>;
        case DType::Q3_K: return dot_two_bit_512<true>;
        case DType::Q6_K: return dot_q6_k_512;
        default: return nullptr;
    }
}

QuantDotFn quant_dot_avx512_nibbles(DType t) {
    switch (t) {
        case DType::Q4_K: return dot_k4_512<false>;
        case DType::Q5_K: return dot_k4_512<true>;
        default: return nullptr;
    }
}

}  // namespace snapdoc::cpu
#else
namespace snapdoc::cpu {
QuantDotFn quant_dot_avx512(DType) {
    return nullptr;
}
QuantDotFn quant_dot_avx512_nibbles(DType) {
    return nullptr;
}
}  // namespace snapdoc::cpu
#endif
