// Internals of quant_gemm.h: the unpacked weight blocks the integer GEMM kernels read, and the
// kernels of each level. Weight rows are unpacked per call (quant_gemm.cpp, scalar code) into one
// of two plain forms, so one kernel per form serves every block type:
//   UnpackedK   a 256-value super-block (Q2_K..Q6_K): unsigned levels q (0..63) with per-16-value
//               i16 scales and mins, w = d·scale·q − dmin·min (Q3_K / Q6_K store their level offset
//               as a min: min = offset·scale, dmin = d);
//   Unpacked32  a 32-value block (Q4_0..Q8_0, IQ4_NL): signed levels, w = d·q + m.
// The SIMD kernels' translation units are compiled with their own target flags (engine/CMakeLists.txt)
// and include nothing with external inline code, so no AVX-512 copy of a shared inline function can
// reach a CPU without it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/runtime/cpu/kernel_level.h"

namespace snapdoc::cpu::quant_gemm_detail {

struct alignas(32) UnpackedK {
    uint8_t q[256];
    int16_t scale[8][16];  // 32-value chunk c: lanes 0..7 scale group 2c, lanes 8..15 group 2c + 1
    int16_t min[16];       // per 16-value group
    float d, dmin;
};

struct Unpacked32 {
    int8_t q[32];
    float d, m;
};

// y[i·ldy + r] = row r of w (rows rows, nb blocks each, contiguous) · activation row i (n rows of
// act_stride bytes, ActBlock256 / ActBlock32 as quant_activation.h writes them).
using GemmKFn = void (*)(const UnpackedK* w, int rows, int64_t nb, const uint8_t* act, std::size_t act_stride,
                         int n, float* y, int64_t ldy);
// has_min: some block has m != 0 (Q4_1 / Q5_1), so the kernel adds m·d·Σq.
using Gemm32Fn = void (*)(const Unpacked32* w, int rows, int64_t nb, bool has_min, const uint8_t* act,
                          std::size_t act_stride, int n, float* y, int64_t ldy);

struct Kernels {
    GemmKFn k = nullptr;
    Gemm32Fn b32 = nullptr;
};

// The same weights widened once per chunk for the 16-bit activation GEMM (quant_activation_wide.h),
// so each widened row serves every activation row of the call:
//   WideK   w[e] = scale(e)·q[e] as i16 (|w| ≤ 63·128 = 8064: Q6_K), weight = d·w − dmin·min(g);
//           the mins as floats (they multiply float activation sums);
//   Wide32  w[e] = q[e] as i16, weight = d·w + m.
struct alignas(32) WideK {
    int16_t w[256];
    float min[16];
    float d, dmin;
};

struct alignas(8) Wide32 {
    int16_t w[32];
    float d, m;
};

// The i32 sums of a super-block are turned into floats every flush_chunks 32-value chunks, so no
// lane overflows: a lane sums 4 products per chunk of at most |w|·32767, so 8 chunks (the whole
// block) hold for |w| ≤ 2047 (Q2_K..Q5_K: 45, 224, 945, 1953) and Q6_K's 8064 needs 2
// (4·2·8064·32767 = 2.11e9 < 2^31). wide_flush_chunks (quant_gemm.cpp) picks it per type.
using WideGemmKFn = void (*)(const WideK* w, int rows, int64_t nb, int flush_chunks, const uint8_t* act,
                             std::size_t act_stride, int n, float* y, int64_t ldy);
using WideGemm32Fn = void (*)(const Wide32* w, int rows, int64_t nb, bool has_min, const uint8_t* act,
                              std::size_t act_stride, int n, float* y, int64_t ldy);

struct WideKernels {
    WideGemmKFn k = nullptr;
    WideGemm32Fn b32 = nullptr;
};

Kernels portable_kernels();
Kernels avx2_kernels();        // nulls when the build has no AVX2 kernels (not x86, no GCC/Clang)
bool kernels_built(KernelLevel level);
WideKernels portable_wide_kernels();  // the scalar reference of the 16-bit activation GEMM
WideKernels avx2_wide_kernels();      // nulls where the build has no AVX2 kernels

}  // namespace snapdoc::cpu::quant_gemm_detail
