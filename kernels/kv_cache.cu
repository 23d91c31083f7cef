#include "kernels/device_utils.cuh"
#include "kernels/kv_cache.h"

namespace snapdoc::kernels {
namespace {

// One thread per (row, cache head, dim), dim fastest: reads and writes are coalesced per head row.
__global__ void kv_append_kernel(KvLayerView cache, const float* __restrict__ qkv, int64_t row_stride,
                                 int64_t k_offset, int64_t v_offset, int n_kv_heads,
                                 const int32_t* __restrict__ positions, int n) {
    const int hd = cache.head_dim;
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(n) * cache.n_heads * hd) return;
    const int d = static_cast<int>(idx % hd);
    const int ch = static_cast<int>((idx / hd) % cache.n_heads);
    const int r = static_cast<int>(idx / (static_cast<int64_t>(hd) * cache.n_heads));
    const int kvh = ch / (cache.n_heads / n_kv_heads);
    const int64_t entry = cache.seg.offset[ch] + cache.seg.length[ch] + r;
    const float* row = qkv + r * row_stride;
    cache.k[entry * hd + d] = __float2half_rn(row[k_offset + static_cast<int64_t>(kvh) * hd + d]);
    cache.v[entry * hd + d] = __float2half_rn(row[v_offset + static_cast<int64_t>(kvh) * hd + d]);
    if (d == 0) cache.pos[entry] = positions[r];
}

}  // namespace

cudaError_t kv_append_rows(const KvLayerView& cache, const float* qkv, int64_t row_stride, int64_t k_offset,
                           int64_t v_offset, int n_kv_heads, const int32_t* positions, int n, cudaStream_t stream) {
    const int64_t total = static_cast<int64_t>(n) * cache.n_heads * cache.head_dim;
    if (total <= 0) return cudaSuccess;
    if (n_kv_heads <= 0 || cache.n_heads % n_kv_heads != 0 || cache.n_heads > kMaxCacheHeads)
        return cudaErrorInvalidValue;
    const int threads = 256;
    SNAPDOC_LAUNCH(detail::ceil_div(total, threads), threads, 0, stream, kv_append_kernel)(cache, qkv, row_stride, k_offset,
                                                                                v_offset, n_kv_heads, positions, n);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
