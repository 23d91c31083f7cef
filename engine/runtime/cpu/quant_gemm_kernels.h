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

Kernels portable_kernels();
Kernels avx2_kernels();        // nulls when the build has no AVX2 kernels (not x86, no GCC/Clang)
bool kernels_built(KernelLevel level);

}  // namespace snapdoc::cpu::quant_gemm_detail
