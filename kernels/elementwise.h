// Element-wise ops of the Llama block. (The residual adds after the attention output and FFN down
// projections are fused into the GEMMs with beta = 1; add_inplace is for everything else.)
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// gate_up [n, 2 * ffn] f32 (row = gate then up, as the fused gate/up GEMM writes it);
// out[r, i] = silu(gate[r, i]) * up[r, i] in out_dt (the input type of the down projection).
cudaError_t swiglu(const float* gate_up, void* out, Dt out_dt, int n, int ffn, cudaStream_t stream);

// y[i] += x[i] for i < count.
cudaError_t add_inplace(float* y, const float* x, int64_t count, cudaStream_t stream);

}  // namespace snapdoc::kernels
