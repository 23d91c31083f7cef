// The prefill integer GEMM on 16-bit activations (quant_activation_wide.h): the weight rows are
// unpacked per chunk as for quant_gemm (quant_gemm.h), widened to 16 bits with the K-quants'
// sub-block scales folded in (WideK / Wide32, quant_gemm_kernels.h), and multiplied with madd_epi16
// (quant_gemm_wide_avx2.cpp). For the AVX2 level, where it costs about what the 8-bit GEMM does and
// brings the logits from about llama.cpp's distance to the exact ones to a small fraction of it
// (docs/RESULTS.md, "Wide activations on AVX2"); the VNNI levels keep their 8-bit kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/quant_activation_wide.h"

namespace snapdoc::cpu {

// The levels with a 16-bit activation GEMM: AVX2 and the portable reference.
bool quant_gemm_wide_available(KernelLevel level);
// The activation format that weight type t (quant_gemm_supports(t)) multiplies in.
WideFormat wide_format(DType t);
// As quant_gemm, with act the n rows quantized by quantize_activation_wide(wide_format(t), …).
void quant_gemm_wide(KernelLevel level, DType t, const uint8_t* w, std::size_t row_bytes, int64_t rows, int64_t in,
                     const uint8_t* act, int n, float* y, int64_t ldy);

}  // namespace snapdoc::cpu
