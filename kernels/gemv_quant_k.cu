// gemv_quant / dequantize_rows for the 256-value super-block types: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS.
#include "kernels/gemv_quant_impl.cuh"

namespace snapdoc::kernels::quant {

#define SNAPDOC_K_FORMATS(X) \
    X(Q2_K, FmtQ2_K)         \
    X(Q3_K, FmtQ3_K)         \
    X(Q4_K, FmtQ4_K)         \
    X(Q5_K, FmtQ5_K)         \
    X(Q6_K, FmtQ6_K)         \
    X(IQ4_XS, FmtIq4Xs)

cudaError_t gemv_k(const void* w, BlockType t, int rows, int cols, const float* x, int64_t x_stride, int n, float* y,
                   int64_t y_stride, float beta, cudaStream_t stream) {
    switch (t) {
#define X(type, fmt) \
    case BlockType::type: return launch_gemv<fmt>(w, rows, cols, x, x_stride, n, y, y_stride, beta, stream);
        SNAPDOC_K_FORMATS(X)
#undef X
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t dequant_k(const void* w, BlockType t, int cols, int64_t row0, const int32_t* row_ids, int rows, void* dst,
                      Dt dst_dt, int64_t dst_stride, cudaStream_t stream) {
    switch (t) {
#define X(type, fmt) \
    case BlockType::type: return launch_dequant<fmt>(w, cols, row0, row_ids, rows, dst, dst_dt, dst_stride, stream);
        SNAPDOC_K_FORMATS(X)
#undef X
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace snapdoc::kernels::quant
