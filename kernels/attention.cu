#include <algorithm>

#include "kernels/attention.h"
#include "kernels/device_utils.cuh"

namespace snapdoc::kernels {
namespace {

// A block = 8 warps; each warp owns 2 "items" (an item is one query row of one query head of the
// block's cache head); a lane owns one key of the 32-key tile for the scores and head_dim/32
// output dimensions for the P·V sum. K is kept in shared memory as f32 with a padded row (stride
// DMAX + 1) so the 32 lanes reading one dimension of 32 different keys hit 32 different banks.
constexpr int kWarps = 8;
constexpr int kItemsPerWarp = 2;
constexpr int kItems = kWarps * kItemsPerWarp;
constexpr int kTile = 32;

struct KernelArgs {
    AttentionArgs a;
    int split_len;
    int n_split;
};

template <int DMAX>
__global__ void __launch_bounds__(kWarps * 32) attention_kernel(KernelArgs ka) {
    const AttentionArgs& a = ka.a;
    __shared__ float sq[kItems][DMAX];
    __shared__ float sk[kTile][DMAX + 1];
    __shared__ float sv[kTile][DMAX];
    __shared__ int svis[kItems];

    const int D = a.cache.head_dim;
    const int group = a.n_heads / a.cache.n_heads;
    const int ch = blockIdx.y, split = blockIdx.z;
    const int item0 = blockIdx.x * kItems;
    const int n_items = a.n * group;  // items of this cache head: row-major over (row, head in group)
    const int64_t seg_off = a.cache.seg.offset[ch];
    const int seg_len = a.cache.seg.length[ch];
    const int32_t* kpos = a.cache.pos + seg_off;

    if (threadIdx.x < kItems) {
        const int it = item0 + threadIdx.x;
        svis[threadIdx.x] = it < n_items ? detail::count_visible(kpos, seg_len, a.q_pos[it / group]) : 0;
    }
    for (int idx = threadIdx.x; idx < kItems * DMAX; idx += blockDim.x) {
        const int i = idx / DMAX, d = idx % DMAX, it = item0 + i;
        float v = 0.0f;
        if (it < n_items && d < D) {
            const int row = it / group, h = ch * group + it % group;
            v = a.q[row * a.q_stride + static_cast<int64_t>(h) * D + d] * a.scale;
        }
        sq[i][d] = v;  // zero past head_dim, so the dot products may run to DMAX unmasked
    }
    __syncthreads();

    int block_vis = 0;
    for (int i = 0; i < kItems; ++i) block_vis = max(block_vis, svis[i]);
    const int k_begin = split * ka.split_len;
    const int k_end = min(block_vis, k_begin + ka.split_len);

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    constexpr int C = DMAX / 32;
    float m[kItemsPerWarp], l[kItemsPerWarp], acc[kItemsPerWarp][C];
#pragma unroll
    for (int w = 0; w < kItemsPerWarp; ++w) {
        m[w] = -INFINITY;
        l[w] = 0.0f;
#pragma unroll
        for (int c = 0; c < C; ++c) acc[w][c] = 0.0f;
    }

    for (int t0 = k_begin; t0 < k_end; t0 += kTile) {
        for (int idx = threadIdx.x; idx < kTile * DMAX; idx += blockDim.x) {
            const int j = idx / DMAX, d = idx % DMAX, key = t0 + j;
            float kv = 0.0f, vv = 0.0f;
            if (key < k_end && d < D) {
                const int64_t e = (seg_off + key) * D + d;
                kv = __half2float(a.cache.k[e]);
                vv = __half2float(a.cache.v[e]);
            }
            sk[j][d] = kv;
            sv[j][d] = vv;
        }
        __syncthreads();
#pragma unroll
        for (int w = 0; w < kItemsPerWarp; ++w) {
            const int li = warp * kItemsPerWarp + w;
            const int vis = min(svis[li], k_end);  // this split's keys visible to the item
            if (t0 >= vis) continue;                // uniform over the warp
            float s = -INFINITY;
            if (t0 + lane < vis) {
                float dot = 0.0f;
#pragma unroll 8
                for (int d = 0; d < DMAX; ++d) dot += sq[li][d] * sk[lane][d];
                s = dot;
            }
            // Key t0 is visible (t0 < vis), so the tile max and m_new are finite.
            const float m_new = fmaxf(m[w], detail::warp_max(s));
            const float corr = expf(m[w] - m_new);
            const float p = expf(s - m_new);
            l[w] = l[w] * corr + detail::warp_sum(p);
#pragma unroll
            for (int c = 0; c < C; ++c) acc[w][c] *= corr;
            const int jn = min(kTile, vis - t0);
            for (int j = 0; j < jn; ++j) {
                const float pj = __shfl_sync(0xffffffffu, p, j);
#pragma unroll
                for (int c = 0; c < C; ++c) acc[w][c] += pj * sv[j][lane + 32 * c];
            }
            m[w] = m_new;
        }
        __syncthreads();
    }

#pragma unroll
    for (int w = 0; w < kItemsPerWarp; ++w) {
        const int it = item0 + warp * kItemsPerWarp + w;
        if (it >= n_items) continue;
        const int row = it / group, h = ch * group + it % group;
        if (ka.n_split == 1) {
            const float inv = l[w] > 0.0f ? 1.0f / l[w] : 0.0f;  // no visible key: zeros, like the CPU
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int d = lane + 32 * c;
                if (d < D) a.out[row * a.out_stride + static_cast<int64_t>(h) * D + d] = acc[w][c] * inv;
            }
            if (a.lse && lane == 0) a.lse[static_cast<int64_t>(row) * a.n_heads + h] = l[w] > 0.0f ? m[w] + logf(l[w]) : -INFINITY;
        } else {
            // Unnormalised partial of this split; attention_combine merges the splits.
            const int64_t slots = static_cast<int64_t>(a.n) * a.n_heads;
            const int64_t slot = split * slots + static_cast<int64_t>(row) * a.n_heads + h;
            float* part_acc = a.scratch;
            float* part_m = a.scratch + ka.n_split * slots * D;
            float* part_l = part_m + ka.n_split * slots;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int d = lane + 32 * c;
                if (d < D) part_acc[slot * D + d] = acc[w][c];
            }
            if (lane == 0) {
                part_m[slot] = m[w];
                part_l[slot] = l[w];
            }
        }
    }
}

// One warp per (row, query head): rescales each split's partial to the common maximum and sums.
__global__ void attention_combine_kernel(AttentionArgs a, int n_split) {
    const int64_t slots = static_cast<int64_t>(a.n) * a.n_heads;
    const int64_t slot = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x >> 5);
    if (slot >= slots) return;
    const int lane = threadIdx.x & 31, D = a.cache.head_dim;
    const float* part_acc = a.scratch;
    const float* part_m = a.scratch + n_split * slots * D;
    const float* part_l = part_m + n_split * slots;

    float mx = -INFINITY;
    for (int s = lane; s < n_split; s += 32) mx = fmaxf(mx, part_m[s * slots + slot]);
    mx = detail::warp_max(mx);
    const int row = static_cast<int>(slot / a.n_heads), h = static_cast<int>(slot % a.n_heads);
    float* out = a.out + row * a.out_stride + static_cast<int64_t>(h) * D;
    if (mx == -INFINITY) {  // no split saw a visible key
        for (int d = lane; d < D; d += 32) out[d] = 0.0f;
        if (a.lse && lane == 0) a.lse[slot] = -INFINITY;
        return;
    }
    float total = 0.0f;
    for (int s = lane; s < n_split; s += 32) total += part_l[s * slots + slot] * expf(part_m[s * slots + slot] - mx);
    total = detail::warp_sum(total);
    for (int d = lane; d < D; d += 32) {
        float sum = 0.0f;
        for (int s = 0; s < n_split; ++s) sum += part_acc[(s * slots + slot) * D + d] * expf(part_m[s * slots + slot] - mx);
        out[d] = sum / total;
    }
    if (a.lse && lane == 0) a.lse[slot] = mx + logf(total);
}

int round_up(int x, int m) { return (x + m - 1) / m * m; }

}  // namespace

AttentionPlan plan_attention(int n, int n_heads, int cache_heads, int max_len, int sm_count) {
    const int group = cache_heads > 0 ? n_heads / cache_heads : 1;
    const int64_t blocks = static_cast<int64_t>(detail::ceil_div(static_cast<int64_t>(n) * group, kItems)) * cache_heads;
    AttentionPlan p;
    p.split_len = round_up(std::max(max_len, 1), kTile);
    // Enough blocks already (prefill), or rows too short for a split to pay.
    if (max_len <= 8 * kTile || blocks >= 2 * static_cast<int64_t>(sm_count)) return p;
    const int64_t want = detail::ceil_div(2 * static_cast<int64_t>(sm_count), blocks);
    const int n_split = static_cast<int>(std::min<int64_t>(detail::ceil_div(max_len, 4 * kTile), want));
    if (n_split <= 1) return p;
    p.split_len = round_up(detail::ceil_div(max_len, n_split), kTile);
    p.n_split = detail::ceil_div(max_len, p.split_len);
    return p;
}

int64_t attention_scratch_floats(int n, int n_heads, int cache_heads, int head_dim, int max_len, int sm_count) {
    const AttentionPlan p = plan_attention(n, n_heads, cache_heads, max_len, sm_count);
    if (p.n_split == 1) return 0;
    return static_cast<int64_t>(p.n_split) * n * n_heads * (head_dim + 2);
}

cudaError_t attention(const AttentionArgs& args, cudaStream_t stream) {
    const KvLayerView& c = args.cache;
    if (args.n <= 0) return cudaSuccess;
    if (c.n_heads <= 0 || c.n_heads > kMaxCacheHeads || args.n_heads % c.n_heads != 0 || c.head_dim <= 0 ||
        c.head_dim > kMaxHeadDim)
        return cudaErrorInvalidValue;
    const AttentionPlan plan = plan_attention(args.n, args.n_heads, c.n_heads, args.max_len, args.sm_count);
    if (plan.n_split > 1 && !args.scratch) return cudaErrorInvalidValue;
    const int group = args.n_heads / c.n_heads;
    const dim3 grid(detail::ceil_div(static_cast<int64_t>(args.n) * group, kItems), c.n_heads, plan.n_split);
    const KernelArgs ka{args, plan.split_len, plan.n_split};
    if (c.head_dim <= 64) SNAPDOC_LAUNCH(grid, kWarps * 32, 0, stream, attention_kernel<64>)(ka);
    else SNAPDOC_LAUNCH(grid, kWarps * 32, 0, stream, attention_kernel<128>)(ka);
    if (plan.n_split > 1) {
        const int64_t slots = static_cast<int64_t>(args.n) * args.n_heads;
        SNAPDOC_LAUNCH(detail::ceil_div(slots, 4), 128, 0, stream, attention_combine_kernel)(args, plan.n_split);
    }
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
