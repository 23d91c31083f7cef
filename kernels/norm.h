// RMSNorm: out[r, i] = x[r, i] / sqrt(mean(x[r]²) + eps) * weight[i], written in `out_dt` so the
// result can feed a cuBLAS GEMM in the weights' type directly (no separate conversion pass).
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// x [n, dim] f32, weight [dim] f32, out [n, dim] of out_dt (F32/F16/BF16).
cudaError_t rms_norm(const float* x, const float* weight, void* out, Dt out_dt, int n, int dim, float eps,
                     cudaStream_t stream);

}  // namespace snapdoc::kernels
