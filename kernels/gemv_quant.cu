// Public entry points of gemv_quant.h: validation, then the family that holds the type.
#include "kernels/gemv_quant.h"
#include "kernels/gemv_quant_impl.cuh"

namespace snapdoc::kernels {

namespace {
bool legacy(BlockType t) { return block_values(t) == 32; }
}  // namespace

cudaError_t gemv_quant(const void* w, BlockType type, int rows, int cols, const float* x, int64_t x_stride, int n,
                       float* y, int64_t y_stride, float beta, cudaStream_t stream) {
    if (rows < 0 || cols < 0 || n < 0 || cols % block_values(type) != 0) return cudaErrorInvalidValue;
    if (rows == 0 || n == 0) return cudaSuccess;  // cols == 0 runs: y = 0 + beta * y
    return legacy(type) ? quant::gemv_legacy(w, type, rows, cols, x, x_stride, n, y, y_stride, beta, stream)
                        : quant::gemv_k(w, type, rows, cols, x, x_stride, n, y, y_stride, beta, stream);
}

cudaError_t dequantize_rows(const void* w, BlockType type, int cols, int64_t row0, const int32_t* row_ids, int rows,
                            void* dst, Dt dst_dt, int64_t dst_stride, cudaStream_t stream) {
    if (rows < 0 || cols < 0 || row0 < 0 || cols % block_values(type) != 0) return cudaErrorInvalidValue;
    if (dst_dt != Dt::F32 && dst_dt != Dt::F16 && dst_dt != Dt::BF16) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    return legacy(type) ? quant::dequant_legacy(w, type, cols, row0, row_ids, rows, dst, dst_dt, dst_stride, stream)
                        : quant::dequant_k(w, type, cols, row0, row_ids, rows, dst, dst_dt, dst_stride, stream);
}

}  // namespace snapdoc::kernels
