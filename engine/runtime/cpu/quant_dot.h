// Dot products of one block-quantized weight row with an 8-bit activation row (quant_activation.h),
// for the batch-1 decode path. Integer products are exact; the only rounding beyond the activation's
// 8 bits is the float accumulation of per-block results.
//
// quant_dot uses the SIMD kernels of the active kernel level (kernel_level.h: AVX2, AVX-VNNI or
// AVX-512 VNNI, each compiled with its own target flags and chosen at run time, so the build's own
// -march does not matter), else the portable code; quant_dot_portable is always the portable code
// (tests compare the two).
#pragma once

#include <cstdint>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu {

// Weight row of block type t (n values, whole blocks) · activation row quantized in act_format(t).
// At active_kernel_level().
float quant_dot(DType t, const uint8_t* row, const void* act, int64_t n);
float quant_dot_portable(DType t, const uint8_t* row, const void* act, int64_t n);

using QuantDotFn = float (*)(const uint8_t* row, const void* act, int64_t n);
// What quant_dot calls for t at `level` (fetch it once per matmul rather than per row): the
// level's kernel reading act_format(t), or the portable one where the level has none.
QuantDotFn quant_dot_fn(DType t, KernelLevel level);

// The fastest decode kernel for t and the activation format it reads: quant_dot_fn(t) on
// act_format(t), or a kernel with its own layout where one is faster (the 512-bit Q4_K kernel, ~1.3×
// its file-order predecessor when L2-resident: RESULTS.md).
struct DecodeDot {
    QuantDotFn dot;
    ActFormat act;
};
DecodeDot decode_dot(DType t, KernelLevel level);
// At active_kernel_level() (which reads SNAPDOC_CPU_KERNELS: call once per matmul, not per row).
DecodeDot decode_dot(DType t);

}  // namespace snapdoc::cpu
