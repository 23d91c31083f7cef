#include "kernels/decode_fused.h"
#include "kernels/device_utils.cuh"

namespace snapdoc::kernels {
namespace {

constexpr int kThreads = 64;  // one per frequency of a head of up to 128 dims

__global__ void __launch_bounds__(kThreads) rope_kv_append_kernel(RopeAppendArgs a) {
    const int ch = blockIdx.x;
    const int hd = a.cache.head_dim, half = hd / 2;
    const int q_per_block = a.n_heads / a.cache.n_heads;  // 1 in query-head mode
    const int kvh = ch / (a.cache.n_heads / a.n_kv_heads);
    const int len = a.length[ch];
    const int32_t p = a.position[0];
    const int64_t entry = a.cache.seg.offset[ch] + len;
    const bool adjacent = a.convention == RopeConvention::AdjacentPairs;
    const float* kv_row = a.qkv + static_cast<int64_t>(a.n_heads) * hd;  // keys, then values
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        // The table rope kernel's rotation (kernels/rope.cu), so both paths rotate identically.
        const double angle = static_cast<double>(p) * a.inv_freq[i];
        double sd, cd;
        sincos(angle, &sd, &cd);
        const double f = a.attention_factor;
        const float s = static_cast<float>(sd * f), c = static_cast<float>(cd * f);
        const int ia = adjacent ? 2 * i : i;
        const int ib = adjacent ? 2 * i + 1 : i + half;
        for (int j = 0; j < q_per_block; ++j) {
            float* v = a.qkv + static_cast<int64_t>(ch * q_per_block + j) * hd;
            const float x0 = v[ia], x1 = v[ib];
            v[ia] = x0 * c - x1 * s;
            v[ib] = x0 * s + x1 * c;
        }
        const float* k = kv_row + static_cast<int64_t>(kvh) * hd;
        const float k0 = k[ia], k1 = k[ib];
        a.cache.k[entry * hd + ia] = __float2half_rn(k0 * c - k1 * s);
        a.cache.k[entry * hd + ib] = __float2half_rn(k0 * s + k1 * c);
        const float* v = kv_row + static_cast<int64_t>(a.n_kv_heads) * hd + static_cast<int64_t>(kvh) * hd;
        a.cache.v[entry * hd + ia] = __float2half_rn(v[ia]);
        a.cache.v[entry * hd + ib] = __float2half_rn(v[ib]);
    }
    __syncthreads();  // every thread has read length[ch]
    if (threadIdx.x == 0) {
        a.cache.pos[entry] = p;
        a.length[ch] = len + 1;
    }
}

__global__ void advance_position_kernel(int32_t* position) { position[0] += 1; }

}  // namespace

cudaError_t rope_kv_append(const RopeAppendArgs& a, cudaStream_t stream) {
    const KvLayerView& c = a.cache;
    if (!a.qkv || !a.length || !a.position || !a.inv_freq || c.n_heads <= 0 || c.n_heads > kMaxCacheHeads || a.n_kv_heads <= 0 ||
        c.n_heads % a.n_kv_heads != 0 || a.n_heads % c.n_heads != 0 || c.head_dim <= 0 || c.head_dim % 2 != 0)
        return cudaErrorInvalidValue;
    SNAPDOC_LAUNCH(c.n_heads, kThreads, 0, stream, rope_kv_append_kernel)(a);
    return cudaGetLastError();
}

cudaError_t advance_position(int32_t* position, cudaStream_t stream) {
    if (!position) return cudaErrorInvalidValue;
    SNAPDOC_LAUNCH(1, 1, 0, stream, advance_position_kernel)(position);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
