// The projections through cuBLAS: y = x · Wᵀ (+ beta · y), W row-major [out, in] as stored in the
// model, x row-major [n, in] in W's dtype, y row-major [n, out] in f32, always accumulated in f32
// (CUBLAS_COMPUTE_32F: no TF32 shortcut for F32 weights, so small F32 models stay exact).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "kernels/types.h"

namespace snapdoc::cuda {

class Gemm {
public:
    explicit Gemm(cudaStream_t stream);
    ~Gemm();
    Gemm(const Gemm&) = delete;
    Gemm& operator=(const Gemm&) = delete;

    // beta = 1 adds into y: the residual adds after the attention output and FFN down projections.
    // ldy: y's row stride when it is wider than `out` (a row range of a larger product); 0 = out.
    void operator()(const void* w, const void* x, kernels::Dt dt, int n, int in, int out, float* y,
                    float beta = 0.0f, int ldy = 0) const;

private:
    cublasHandle_t handle_ = nullptr;
};

}  // namespace snapdoc::cuda
