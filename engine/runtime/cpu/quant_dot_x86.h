// Small x86 helpers shared by the decode dot kernels (quant_dot_avx2.cpp, quant_dot_avx512.cpp).
// Those translation units are compiled with different target flags (one per kernel level), so the
// helpers have internal linkage (an unnamed namespace): each unit keeps its own copy, and the
// linker cannot hand an AVX2-only CPU the AVX-512 unit's copy of a shared inline function.
// Include only inside a block that checks the target (F16C, SSE4.1).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu::quant_dot_x86 {
namespace {

inline float half(const uint8_t* p) {
    return _cvtsh_ss(quant::load_u16(p));
}

inline int hsum(__m128i v) {
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4E));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xB1));
    return _mm_cvtsi128_si32(v);
}

inline float hsum(__m128 v) {
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    return _mm_cvtss_f32(_mm_add_ss(v, _mm_movehdup_ps(v)));
}

inline float hsum(__m256 v) {
    return hsum(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}

// Σ_j mins8[j] · (activation sum of 32-value sub-block j = 16-value groups 2j and 2j + 1): the
// sub-block mins of a Q4_K / Q5_K super-block against the activation's group sums.
inline int mins_dot_32(const uint8_t* mins8, const ActBlock256& a) {
    const __m128i sums = _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.sums16)),
                                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.sums16 + 8)));
    const __m128i mins = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(mins8)));
    return hsum(_mm_madd_epi16(mins, sums));
}

}  // namespace
}  // namespace snapdoc::cpu::quant_dot_x86
