#include "engine/runtime/cpu/matmul.h"

#include <cblas.h>

#include <algorithm>

#include "engine/runtime/cpu/dot_kernels.h"

namespace snapdoc::cpu {

void MatMul::operator()(const TensorView& w, const float* x, int n, float* y) {
    if (n <= kSmallBatchRows)
        small_batch(w, x, n, y);
    else
        blas(w, x, n, y);
}

void MatMul::small_batch(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    pool_.parallel_for(out, 16, [&](int64_t r0, int64_t r1, int) {
        for (int64_t r = r0; r < r1; ++r) {
            const void* row = w.row_ptr(r);
            for (int i = 0; i < n; ++i) y[i * out + r] = dot_row(w.dtype, row, x + i * in, in);
        }
    });
}

void MatMul::blas(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    if (w.dtype == DType::F32) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, static_cast<int>(out), static_cast<int>(in), 1.0f,
                    x, static_cast<int>(in), static_cast<const float*>(w.data), static_cast<int>(in), 0.0f, y,
                    static_cast<int>(out));
        return;
    }
    // Blocks of ~4 MB of f32 keep the scratch in cache-friendly sizes while sgemm stays efficient.
    const int64_t block_rows = std::max<int64_t>(64, (int64_t{1} << 20) / std::max<int64_t>(1, in));
    scratch_.resize(static_cast<std::size_t>(std::min(block_rows, out) * in));
    for (int64_t r0 = 0; r0 < out; r0 += block_rows) {
        const int64_t nb = std::min(block_rows, out - r0);
        pool_.parallel_for(nb, 8, [&](int64_t a, int64_t b, int) {
            for (int64_t r = a; r < b; ++r) dequantize_row(w.dtype, w.row_ptr(r0 + r), scratch_.data() + r * in, in);
        });
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, static_cast<int>(nb), static_cast<int>(in), 1.0f,
                    x, static_cast<int>(in), scratch_.data(), static_cast<int>(in), 0.0f, y + r0,
                    static_cast<int>(out));
    }
}

}  // namespace snapdoc::cpu
