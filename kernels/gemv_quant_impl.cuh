// The quantized GEMV and row-dequantization kernels, templated on a block format of
// quant_blocks.cuh; instantiated per family in gemv_quant_legacy.cu and gemv_quant_k.cu.
#pragma once

#include "kernels/device_utils.cuh"
#include "kernels/gemv_quant.h"
#include "kernels/quant_blocks.cuh"

namespace snapdoc::kernels::quant {

inline constexpr int kGemvWarps = 4;  // output rows per block of 128 threads

// One warp per output row. The F::kLanes lanes of a block decode one part each; the warp covers
// 32 / F::kLanes consecutive blocks per step, so each step reads one contiguous span of the row.
// Per group: Σ q·x (and Σ x for affine groups), then a · Σ q·x + b · Σ x — the scale applied once
// per group rather than per value.
template <class F, int NX>
__global__ void __launch_bounds__(kGemvWarps * 32)
    gemv_kernel(const uint8_t* __restrict__ w, int64_t row_bytes, int rows, int nb, const float* __restrict__ x,
                int64_t x_stride, int n, float* __restrict__ y, int64_t y_stride, float beta) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * kGemvWarps + (threadIdx.x >> 5);
    if (row >= rows) return;  // whole warps leave together: no warp op waits for them
    const uint8_t* wr = w + static_cast<int64_t>(row) * row_bytes;
    constexpr int kStep = 32 / F::kLanes;
    const int part = lane % F::kLanes;
    float acc[NX];
#pragma unroll
    for (int j = 0; j < NX; ++j) acc[j] = 0.0f;
    for (int b = lane / F::kLanes; b < nb; b += kStep) {
        Groups<F::kGroups, F::kPer> g;
        F::decode(wr + static_cast<int64_t>(b) * F::kBytes, part, g);
        const int64_t base = static_cast<int64_t>(b) * F::kValues;
#pragma unroll
        for (int j = 0; j < NX; ++j) {
            if (j >= n) break;
            const float* xj = x + j * x_stride + base;
#pragma unroll
            for (int k = 0; k < F::kGroups; ++k) {
                float sq = 0.0f, sx = 0.0f;
#pragma unroll
                for (int i = 0; i < F::kPer; ++i) {
                    const float xv = xj[g.idx[k] + i];
                    sq = fmaf(static_cast<float>(g.q[k][i]), xv, sq);
                    if (F::kAffine) sx += xv;
                }
                acc[j] = fmaf(g.a[k], sq, acc[j]);
                if (F::kAffine) acc[j] = fmaf(g.b[k], sx, acc[j]);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < NX; ++j) {
        if (j >= n) break;
        const float v = detail::warp_sum(acc[j]);
        if (lane == 0) {
            float* out = y + j * y_stride + row;
            *out = beta == 0.0f ? v : v + beta * *out;
        }
    }
}

// One thread per block part of the output rows (grid-stride). Two roundings per value (a·q, then
// + b), exactly as the CPU's dequantize_row.
template <class F, typename D>
__global__ void dequant_kernel(const uint8_t* __restrict__ w, int64_t row_bytes, int nb, int64_t row0,
                               const int32_t* __restrict__ row_ids, int rows, D* __restrict__ dst, int64_t dst_stride) {
    const int64_t units_per_row = static_cast<int64_t>(nb) * F::kLanes;
    const int64_t total = units_per_row * rows;
    for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
         t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int r = static_cast<int>(t / units_per_row);
        const int64_t u = t % units_per_row;
        const int64_t b = u / F::kLanes;
        const int part = static_cast<int>(u % F::kLanes);
        const int64_t src_row = row_ids ? static_cast<int64_t>(row_ids[r]) : row0 + r;
        Groups<F::kGroups, F::kPer> g;
        F::decode(w + src_row * row_bytes + b * F::kBytes, part, g);
        D* out = dst + r * dst_stride + b * F::kValues;
#pragma unroll
        for (int k = 0; k < F::kGroups; ++k)
#pragma unroll
            for (int i = 0; i < F::kPer; ++i) {
                const float prod = __fmul_rn(g.a[k], static_cast<float>(g.q[k][i]));
                out[g.idx[k] + i] = detail::from_float<D>(F::kAffine ? __fadd_rn(prod, g.b[k]) : prod);
            }
    }
}

template <class F>
cudaError_t launch_gemv(const void* w, int rows, int cols, const float* x, int64_t x_stride, int n, float* y,
                        int64_t y_stride, float beta, cudaStream_t stream) {
    const int nb = cols / F::kValues;
    const int64_t row_bytes = static_cast<int64_t>(nb) * F::kBytes;
    const int grid = detail::ceil_div(rows, kGemvWarps);
    const auto* wb = static_cast<const uint8_t*>(w);
    for (int j0 = 0; j0 < n; j0 += kGemvMaxRows) {
        const int m = n - j0 < kGemvMaxRows ? n - j0 : kGemvMaxRows;
        const float* xj = x + j0 * x_stride;
        float* yj = y + j0 * y_stride;
        if (m == 1)
            SNAPDOC_LAUNCH(grid, kGemvWarps * 32, 0, stream, gemv_kernel<F, 1>)(wb, row_bytes, rows, nb, xj, x_stride, m, yj,
                                                                                y_stride, beta);
        else
            SNAPDOC_LAUNCH(grid, kGemvWarps * 32, 0, stream, gemv_kernel<F, kGemvMaxRows>)(wb, row_bytes, rows, nb, xj,
                                                                                           x_stride, m, yj, y_stride, beta);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

template <class F>
cudaError_t launch_dequant(const void* w, int cols, int64_t row0, const int32_t* row_ids, int rows, void* dst, Dt dst_dt,
                           int64_t dst_stride, cudaStream_t stream) {
    const int nb = cols / F::kValues;
    const int64_t row_bytes = static_cast<int64_t>(nb) * F::kBytes;
    const int64_t units = static_cast<int64_t>(nb) * F::kLanes * rows;
    constexpr int kThreads = 256;
    const int grid = static_cast<int>(units / kThreads + 1 < 65536 ? units / kThreads + 1 : 65536);
    const auto* wb = static_cast<const uint8_t*>(w);
    SNAPDOC_DISPATCH_DT(dst_dt, D,
                        SNAPDOC_LAUNCH(grid, kThreads, 0, stream, dequant_kernel<F, D>)(
                            wb, row_bytes, nb, row0, row_ids, rows, static_cast<D*>(dst), dst_stride));
    return cudaGetLastError();
}

// Per-family entry points (the public functions in gemv_quant.cu route by type; sizes validated there).
cudaError_t gemv_legacy(const void* w, BlockType t, int rows, int cols, const float* x, int64_t x_stride, int n, float* y,
                        int64_t y_stride, float beta, cudaStream_t stream);
cudaError_t gemv_k(const void* w, BlockType t, int rows, int cols, const float* x, int64_t x_stride, int n, float* y,
                   int64_t y_stride, float beta, cudaStream_t stream);
cudaError_t dequant_legacy(const void* w, BlockType t, int cols, int64_t row0, const int32_t* row_ids, int rows, void* dst,
                           Dt dst_dt, int64_t dst_stride, cudaStream_t stream);
cudaError_t dequant_k(const void* w, BlockType t, int cols, int64_t row0, const int32_t* row_ids, int rows, void* dst,
                      Dt dst_dt, int64_t dst_stride, cudaStream_t stream);

// Defines one family's two entry points (gemv_NAME, dequant_NAME) as a switch over FORMATS, a list
// X(BlockType, format) of the family's types: each family file is its list plus this one line.
#define SNAPDOC_QUANT_GEMV_CASE(type, fmt) \
    case BlockType::type: return launch_gemv<fmt>(w, rows, cols, x, x_stride, n, y, y_stride, beta, stream);
#define SNAPDOC_QUANT_DEQUANT_CASE(type, fmt) \
    case BlockType::type: return launch_dequant<fmt>(w, cols, row0, row_ids, rows, dst, dst_dt, dst_stride, stream);
#define SNAPDOC_DEFINE_QUANT_FAMILY(NAME, FORMATS)                                                              \
    cudaError_t gemv_##NAME(const void* w, BlockType t, int rows, int cols, const float* x, int64_t x_stride,    \
                            int n, float* y, int64_t y_stride, float beta, cudaStream_t stream) {                \
        switch (t) {                                                                                            \
            FORMATS(SNAPDOC_QUANT_GEMV_CASE)                                                                    \
            default: return cudaErrorInvalidValue;                                                              \
        }                                                                                                       \
    }                                                                                                           \
    cudaError_t dequant_##NAME(const void* w, BlockType t, int cols, int64_t row0, const int32_t* row_ids,       \
                               int rows, void* dst, Dt dst_dt, int64_t dst_stride, cudaStream_t stream) {        \
        switch (t) {                                                                                            \
            FORMATS(SNAPDOC_QUANT_DEQUANT_CASE)                                                                 \
            default: return cudaErrorInvalidValue;                                                              \
        }                                                                                                       \
    }

}  // namespace snapdoc::kernels::quant
