// 16-bit ("wide") activation rows for the AVX2 integer GEMM (quant_gemm_wide.h). Without VNNI an
// 8-bit product costs maddubs + madd (+ a sign trick) per 32 values, while a 16-bit one is a single
// madd per 16 values once the weights are widened to 16 bits; the GEMM widens each weight chunk once
// and reuses it for every activation row, so 16-bit activations cost about what 8-bit ones do there
// while carrying ~256x finer steps (docs/RESULTS.md, "Wide activations on AVX2").
// Scale d = absmax / 32767 per block (the same block sizes as the 8-bit formats, so the weight block
// scales line up), q = x / d rounded to nearest even, computed in double so the rounding is exact.
#pragma once

#include <cstddef>
#include <cstdint>

namespace snapdoc::cpu {

inline constexpr int kWideActMax = 32767;

// For 32-value weight blocks (Q4_0 .. Q8_0, IQ4_NL): x ≈ d·q; d_sum = d·Σq for the weight offsets
// (Q4_1 / Q5_1 min).
struct alignas(8) WideAct32 {
    int16_t q[32];
    float d;
    float d_sum;
};

// For 256-value super-blocks (K-quants): x ≈ d·q; sums16[g] = Σ of q over values 16g..16g+15 as a
// float (exact: |Σ| ≤ 16·32767 < 2^24), for the sub-block mins.
struct alignas(32) WideAct256 {
    int16_t q[256];
    float sums16[16];
    float d;
};

enum class WideFormat { Blocks32, Blocks256 };

std::size_t wide_act_row_bytes(WideFormat f, int64_t n);
// Quantizes n floats (a multiple of the block size). A block holding NaN or Inf gets d = NaN, q = 0
// and NaN sums, so every product with it is NaN (as quantize_activation does for 8 bits).
void quantize_activation_wide(WideFormat f, const float* x, void* dst, int64_t n);
// The same without SIMD (what CPUs without AVX2 run; tests check both give the same bytes).
void quantize_activation_wide_portable(WideFormat f, const float* x, void* dst, int64_t n);

}  // namespace snapdoc::cpu
