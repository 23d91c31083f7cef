// The prefill matmul for block-quantized weights on integer dot products: the activation rows are
// quantized to 8 bits once per matmul (quant_activation.h, the decode path's quantizer) and each
// weight row's blocks are unpacked once per call into plain integer levels and scales
// (quant_gemm_kernels.h), then multiplied in a register-tiled integer GEMM at the kernel level
// active_kernel_level() picks: AVX2 and portable tiles of 2 weight rows × 4 activation rows; on
// AVX-512 VNNI, 16 weight rows interleaved into each register × 8 activation rows
// (quant_gemm_interleaved.h). Rounding is that of the 8-bit activations (llama.cpp's scheme);
// MatMul keeps the exact f32 path behind --exact-prefill (BackendOptions::exact_prefill).
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/kernel_level.h"

namespace snapdoc::cpu {

// Block types with integer GEMM kernels (all block types but IQ4_XS).
bool quant_gemm_supports(DType t);

// y[i·ldy + r] = W row r · activation row i, for weight rows [0, rows) of type t (row_bytes apart,
// `in` values each) and n activation rows quantized in act_format(t) (act_row_bytes(…, in) each,
// contiguous). Single-threaded: callers split the weight rows over threads. Error if `level` is
// not available here.
void quant_gemm(KernelLevel level, DType t, const uint8_t* w, std::size_t row_bytes, int64_t rows, int64_t in,
                const uint8_t* act, int n, float* y, int64_t ldy);

}  // namespace snapdoc::cpu
