// Dot products of one block-quantized weight row with an 8-bit activation row (quant_activation.h),
// for the batch-1 decode path. Integer products are exact; the only rounding beyond the activation's
// 8 bits is the float accumulation of per-block results.
//
// quant_dot uses AVX2 (and AVX-VNNI / AVX-512 VNNI for the 32-value types; 512-bit kernels for Q4_K
// and Q6_K with AVX-512) when compiled for it, else the portable code; quant_dot_portable is always
// the portable code (tests compare the two).
#pragma once

#include <cstdint>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu {

// Weight row of block type t (n values, whole blocks) · activation row quantized in act_format(t).
float quant_dot(DType t, const uint8_t* row, const void* act, int64_t n);
float quant_dot_portable(DType t, const uint8_t* row, const void* act, int64_t n);

// The SIMD kernel for t, or nullptr when this build has none (quant_dot then uses the portable one).
using QuantDotFn = float (*)(const uint8_t* row, const void* act, int64_t n);
QuantDotFn quant_dot_simd(DType t);
// The 512-bit kernel for t (Q6_K) when this build targets AVX-512 BW + VNNI, else nullptr;
// quant_dot prefers it to quant_dot_simd's.
QuantDotFn quant_dot_avx512(DType t);
// The 512-bit kernel for t (Q4_K, Q5_K) that reads an ActFormat::Blocks256Nibbles activation, when this
// build targets AVX-512 BW + VNNI, else nullptr.
QuantDotFn quant_dot_avx512_nibbles(DType t);
// What quant_dot calls for t (fetch it once per matmul rather than per row).
QuantDotFn quant_dot_fn(DType t);

// The fastest decode kernel for t and the activation format it reads: quant_dot_fn(t) on
// act_format(t), or a kernel with its own layout where one is faster (the 512-bit Q4_K kernel, ~1.3×
// its file-order predecessor when L2-resident: RESULTS.md).
struct DecodeDot {
    QuantDotFn dot;
    ActFormat act;
};
DecodeDot decode_dot(DType t);

}  // namespace snapdoc::cpu
