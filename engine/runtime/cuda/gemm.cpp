#include "engine/runtime/cuda/gemm.h"

#include "engine/common/error.h"
#include "engine/runtime/cuda/cuda_check.h"

namespace snapdoc::cuda {

namespace {
cudaDataType_t cuda_type(kernels::Dt dt) {
    switch (dt) {
        case kernels::Dt::F32: return CUDA_R_32F;
        case kernels::Dt::F16: return CUDA_R_16F;
        case kernels::Dt::BF16: return CUDA_R_16BF;
        default: throw Error("GEMM: unsupported weight type");
    }
}
}  // namespace

Gemm::Gemm(cudaStream_t stream) {
    check(cublasCreate(&handle_), "cublasCreate");
    check(cublasSetStream(handle_, stream), "cublasSetStream");
}

Gemm::~Gemm() {
    if (handle_) cublasDestroy(handle_);
}

void Gemm::operator()(const void* w, const void* x, kernels::Dt dt, int n, int in, int out, float* y,
                      float beta, int ldy) const {
    if (n <= 0) return;
    // cuBLAS is column-major. Read column-major, row-major W [out, in] is an in × out matrix
    // (ld = in), x [n, in] is xᵀ (in × n, ld = in) and y [n, out] is yᵀ (out × n, ld = out).
    // y = x·Wᵀ  <=>  yᵀ = W·xᵀ, i.e. transa = T (undo W's transposed reading), transb = N.
    const float alpha = 1.0f;
    const cudaDataType_t t = cuda_type(dt);
    check(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, out, n, in, &alpha, w, t, in, x, t, in, &beta, y, CUDA_R_32F,
                       ldy > 0 ? ldy : out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
}

}  // namespace snapdoc::cuda
