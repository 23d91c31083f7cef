// Dot products of one weight row (any supported dtype) with f32 activations. These carry the
// batch-1 decode path, which is bound by memory bandwidth: each weight byte is read once and
// converted in registers (AVX2/F16C when compiled for it, portable scalar code otherwise).
#pragma once

#include <cstdint>

#include "engine/model/dtype.h"

namespace snapdoc::cpu {

float dot_f32(const float* a, const float* b, int64_t n);
// Weight row of dtype `t` (n elements) times f32 vector x, exactly (block types other than Q8_0
// through a per-block decode; the fast path for those is quant_dot.h).
float dot_row(DType t, const void* row, const float* x, int64_t n);
// y[j] += a * x[j]
void axpy_f32(float a, const float* x, float* y, int64_t n);

}  // namespace snapdoc::cpu
