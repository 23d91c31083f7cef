#include "engine/runtime/cpu/matmul.h"

#include <cblas.h>

#include <algorithm>

#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/gemm_f32.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_dot.h"
#include "engine/runtime/cpu/quant_gemm.h"

namespace snapdoc::cpu {

void MatMul::operator()(const TensorView& w, const float* x, int n, float* y) {
    const bool integer = !exact_prefill_ && quant_gemm_supports(w.dtype);
    if (n <= kSmallBatchRows)
        small_batch(w, x, n, y);
    else if (integer && n < kIntegerGemmMinRows)
        small_batch_quantized(w, x, n, y);
    else if (integer)
        integer_gemm(w, x, n, y);
    else
        blas(w, x, n, y);
}

void MatMul::small_batch(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    if (dtype_is_quantized(w.dtype)) {
        small_batch_quantized(w, x, n, y);
        return;
    }
    pool_.parallel_for(out, 16, [&](int64_t r0, int64_t r1, int) {
        for (int64_t r = r0; r < r1; ++r) {
            const void* row = w.row_ptr(r);
            for (int i = 0; i < n; ++i) y[i * out + r] = dot_row(w.dtype, row, x + i * in, in);
        }
    });
}

void MatMul::small_batch_quantized(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    // Each activation row is quantized once here and reused for every weight row; the weight
    // blocks are read once, straight from the mapping, and never widened to f32.
    const std::size_t act_bytes = quantize_rows(w.dtype, x, n, in);
    const QuantDotFn dot = quant_dot_fn(w.dtype);
    const uint8_t* act = act_.data();
    const std::size_t row_bytes = dtype_row_bytes(w.dtype, in);
    const auto* base = static_cast<const uint8_t*>(w.data);
    pool_.parallel_for(out, 16, [&](int64_t r0, int64_t r1, int) {
        for (int64_t r = r0; r < r1; ++r) {
            const uint8_t* row = base + static_cast<std::size_t>(r) * row_bytes;
            for (int i = 0; i < n; ++i) y[i * out + r] = dot(row, act + i * act_bytes, in);
        }
    });
}

std::size_t MatMul::quantize_rows(DType weight_type, const float* x, int n, int64_t in) {
    const ActFormat format = act_format(weight_type);
    const std::size_t act_bytes = act_row_bytes(format, in);
    act_.resize(act_bytes * static_cast<std::size_t>(n));
    uint8_t* act = act_.data();
    if (n <= kSmallBatchRows) {
        for (int i = 0; i < n; ++i) quantize_activation(format, x + i * in, act + i * act_bytes, in);
        return act_bytes;
    }
    pool_.parallel_for(n, 8, [&](int64_t i0, int64_t i1, int) {
        for (int64_t i = i0; i < i1; ++i) quantize_activation(format, x + i * in, act + i * act_bytes, in);
    });
    return act_bytes;
}

void MatMul::integer_gemm(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    // The activation rows are quantized once; each thread then runs the tiled integer GEMM on its
    // slice of weight rows.
    quantize_rows(w.dtype, x, n, in);
    const KernelLevel level = active_kernel_level();
    const std::size_t row_bytes = dtype_row_bytes(w.dtype, in);
    const auto* base = static_cast<const uint8_t*>(w.data);
    const uint8_t* act = act_.data();
    pool_.parallel_for(out, 32, [&](int64_t r0, int64_t r1, int) {
        quant_gemm(level, w.dtype, base + static_cast<std::size_t>(r0) * row_bytes, row_bytes, r1 - r0, in, act, n,
                   y + r0, out);
    });
}

void MatMul::blas(const TensorView& w, const float* x, int n, float* y) {
    const int64_t out = w.rows(), in = w.cols();
    // Our pool splits the output features; each thread runs a single-threaded GEMM on its slice
    // (OpenBLAS's own threads are off: two thread systems spinning on two cores starve each other).
    // Non-f32 weights are dequantized slice by slice into per-thread scratch, so the weights stay
    // compact in memory and the conversion runs in parallel too.
    // Our AVX-512 GEMM where the CPU has it (about 1.9x OpenBLAS's Haswell kernels, which is what the
    // environment's OPENBLAS_CORETYPE pins; gemm_f32.h), OpenBLAS elsewhere.
    const bool use_own_gemm = gemm_f32_has_avx512();
    const int64_t block_rows = std::max<int64_t>(16, std::min<int64_t>(256, (int64_t{1} << 18) / std::max<int64_t>(1, in)));
    scratch_.resize(pool_.size());
    pool_.parallel_for(out, block_rows, [&](int64_t r0, int64_t r1, int thread) {
        for (int64_t b0 = r0; b0 < r1; b0 += block_rows) {
            const int64_t nb = std::min(block_rows, r1 - b0);
            const float* wb;
            if (w.dtype == DType::F32) {
                wb = static_cast<const float*>(w.data) + b0 * in;
            } else {
                auto& buf = scratch_[thread];
                buf.resize(static_cast<std::size_t>(nb * in));
                for (int64_t r = 0; r < nb; ++r) dequantize_row(w.dtype, w.row_ptr(b0 + r), buf.data() + r * in, in);
                wb = buf.data();
            }
            if (use_own_gemm)
                gemm_f32_nt(n, nb, in, x, in, wb, in, y + b0, out, GemmIsa::Avx512);
            else
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, static_cast<int>(nb), static_cast<int>(in), 1.0f,
                            x, static_cast<int>(in), wb, static_cast<int>(in), 0.0f, y + b0, static_cast<int>(out));
        }
    });
}

}  // namespace snapdoc::cpu
