// gemv_quant / dequantize_rows for the 32-value block types: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL.
#include "kernels/gemv_quant_impl.cuh"

namespace snapdoc::kernels::quant {

#define SNAPDOC_LEGACY_FORMATS(X) \
    X(Q4_0, FmtQ4_0)              \
    X(Q4_1, FmtQ4_1)              \
    X(Q5_0, FmtQ5_0)              \
    X(Q5_1, FmtQ5_1)              \
    X(Q8_0, FmtQ8_0)              \
    X(IQ4_NL, FmtIq4Nl)

cudaError_t gemv_legacy(const void* w, BlockType t, int rows, int cols, const float* x, int64_t x_stride, int n, float* y,
                        int64_t y_stride, float beta, cudaStream_t stream) {
    switch (t) {
#define X(type, fmt) \
    case BlockType::type: return launch_gemv<fmt>(w, rows, cols, x, x_stride, n, y, y_stride, beta, stream);
        SNAPDOC_LEGACY_FORMATS(X)
#undef X
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t dequant_legacy(const void* w, BlockType t, int cols, int64_t row0, const int32_t* row_ids, int rows, void* dst,
                           Dt dst_dt, int64_t dst_stride, cudaStream_t stream) {
    switch (t) {
#define X(type, fmt) \
    case BlockType::type: return launch_dequant<fmt>(w, cols, row0, row_ids, rows, dst, dst_dt, dst_stride, stream);
        SNAPDOC_LEGACY_FORMATS(X)
#undef X
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace snapdoc::kernels::quant
