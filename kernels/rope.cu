#include "kernels/device_utils.cuh"
#include "kernels/rope.h"

namespace snapdoc::kernels {
namespace {

// Rotates pair i of every head in one row by the angle whose cosine and sine are c and s; the pair
// is (2i, 2i+1) for adjacent-pair models, (i, i + head_dim/2) for NeoX-style halves.
__device__ __forceinline__ void rotate_pair(float* row, int n_heads, int head_dim, int i, bool adjacent, float c,
                                            float s) {
    const int a = adjacent ? 2 * i : i;
    const int b = adjacent ? 2 * i + 1 : i + head_dim / 2;
    for (int h = 0; h < n_heads; ++h) {
        float* v = row + static_cast<int64_t>(h) * head_dim;
        const float x0 = v[a], x1 = v[b];
        v[a] = x0 * c - x1 * s;
        v[b] = x0 * s + x1 * c;
    }
}

// One thread per (row, frequency i): the angle is computed once in double (at positions ~100K an
// f32 angle loses several digits; this matches the CPU backend) and applied to every head.
__global__ void rope_kernel(float* __restrict__ x, int64_t row_stride, int n, int n_heads, int head_dim,
                            const int32_t* __restrict__ positions, float theta, float linear_scale, bool adjacent) {
    const int half = head_dim / 2;
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(n) * half) return;
    const int r = static_cast<int>(idx / half), i = static_cast<int>(idx % half);
    const double inv_freq = pow(static_cast<double>(theta), -2.0 * i / head_dim);
    const double angle = static_cast<double>(positions[r]) / linear_scale * inv_freq;
    double sd, cd;
    sincos(angle, &sd, &cd);
    const float s = static_cast<float>(sd), c = static_cast<float>(cd);
    rotate_pair(x + r * row_stride, n_heads, head_dim, i, adjacent, c, s);
}

// As rope_kernel, with the pair's frequency read from a table, and cos/sin rounded to f32 after
// the attention factor is applied, as the CPU backend's table does (engine/runtime/cpu/elementwise.cpp).
__global__ void rope_table_kernel(float* __restrict__ x, int64_t row_stride, int n, int n_heads, int head_dim,
                                  const int32_t* __restrict__ positions, const double* __restrict__ inv_freq,
                                  double attention_factor, bool adjacent) {
    const int half = head_dim / 2;
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(n) * half) return;
    const int r = static_cast<int>(idx / half), i = static_cast<int>(idx % half);
    const double angle = static_cast<double>(positions[r]) * inv_freq[i];
    double sd, cd;
    sincos(angle, &sd, &cd);
    const float s = static_cast<float>(sd * attention_factor), c = static_cast<float>(cd * attention_factor);
    rotate_pair(x + r * row_stride, n_heads, head_dim, i, adjacent, c, s);
}

}  // namespace

cudaError_t rope_with_frequencies(float* x, int64_t row_stride, int n, int n_heads, int head_dim,
                                  const int32_t* positions, const double* inv_freq, float attention_factor,
                                  RopeConvention convention, cudaStream_t stream) {
    const int64_t total = static_cast<int64_t>(n) * (head_dim / 2);
    if (total <= 0) return cudaSuccess;
    const int threads = 128;
    SNAPDOC_LAUNCH(detail::ceil_div(total, threads), threads, 0, stream, rope_table_kernel)(
        x, row_stride, n, n_heads, head_dim, positions, inv_freq, static_cast<double>(attention_factor),
        convention == RopeConvention::AdjacentPairs);
    return cudaGetLastError();
}

cudaError_t rope(float* x, int64_t row_stride, int n, int n_heads, int head_dim, const int32_t* positions,
                 float theta, float linear_scale, RopeConvention convention, cudaStream_t stream) {
    const int64_t total = static_cast<int64_t>(n) * (head_dim / 2);
    if (total <= 0) return cudaSuccess;
    const int threads = 128;
    SNAPDOC_LAUNCH(detail::ceil_div(total, threads), threads, 0, stream, rope_kernel)(
        x, row_stride, n, n_heads, head_dim, positions, theta, linear_scale, convention == RopeConvention::AdjacentPairs);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
