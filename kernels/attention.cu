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

// Output element `idx` (row * out_stride + head * head_dim + d): f32 to `out`, or in the projection's
// input type to `out_cast` (single-row launches).
__device__ __forceinline__ void store_out(const AttentionArgs& a, int64_t idx, float v) {
    if (!a.out_cast) a.out[idx] = v;
    else if (a.out_cast_dt == Dt::F16) static_cast<__half*>(a.out_cast)[idx] = detail::from_float<__half>(v);
    else if (a.out_cast_dt == Dt::BF16) static_cast<__nv_bfloat16*>(a.out_cast)[idx] = detail::from_float<__nv_bfloat16>(v);
    else static_cast<float*>(a.out_cast)[idx] = v;
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
    const int64_t out0 = row * a.out_stride + static_cast<int64_t>(h) * D;
    if (mx == -INFINITY) {  // no split saw a visible key
        for (int d = lane; d < D; d += 32) store_out(a, out0 + d, 0.0f);
        if (a.lse && lane == 0) a.lse[slot] = -INFINITY;
        return;
    }
    float total = 0.0f;
    for (int s = lane; s < n_split; s += 32) total += part_l[s * slots + slot] * expf(part_m[s * slots + slot] - mx);
    total = detail::warp_sum(total);
    for (int d = lane; d < D; d += 32) {
        float sum = 0.0f;
        for (int s = 0; s < n_split; ++s) sum += part_acc[(s * slots + slot) * D + d] * expf(part_m[s * slots + slot] - mx);
        store_out(a, out0 + d, sum / total);
    }
    if (a.lse && lane == 0) a.lse[slot] = mx + logf(total);
}


// ---- single query row (decode) -------------------------------------------------------------------
// A block per (key split, cache head, chunk of kDecodeGroup query heads of the group). Lane l owns
// the dimension pairs (2l, 2l + 1) + 64c of the head, so a key or value row is read by the warp in
// coalesced 64-value pieces straight from the cache (no shared-memory staging, which at head_dim 128
// would not fit 8 warps' tiles). Warp w takes the batches w, w + 8, ... of kDecodeBatch keys of the
// block's range; per batch the scores of all (key, query head) pairs come from warp sums, then one
// online-softmax update per query head. The 8 warps' partials are merged in shared memory.
constexpr int kDecodeWarps = 8;
constexpr int kDecodeGroup = 8;   // query heads per block (larger groups use blockIdx.z)
constexpr int kDecodeBatch = 8;   // keys per warp step
constexpr int kDecodeMinSplitKeys = kDecodeWarps * 32;  // a split below this leaves warps idle

struct DecodeArgs {
    AttentionArgs a;
    int n_split;
};

template <int DMAX>
__global__ void __launch_bounds__(kDecodeWarps * 32) decode_attention_kernel(DecodeArgs da) {
    const AttentionArgs& a = da.a;
    constexpr int P = DMAX / 64;  // dimension pairs per lane
    __shared__ float s_m[kDecodeWarps][kDecodeGroup];
    __shared__ float s_l[kDecodeWarps][kDecodeGroup];
    __shared__ float s_acc[kDecodeWarps][kDecodeGroup][DMAX];

    const int D = a.cache.head_dim;
    const int group = a.n_heads / a.cache.n_heads;
    const int split = blockIdx.x, ch = blockIdx.y;
    const int g0 = blockIdx.z * kDecodeGroup;
    const int G = min(kDecodeGroup, group - g0);
    const int64_t seg_off = a.cache.seg.offset[ch];
    const int seg_len = a.seg_length ? a.seg_length[ch] : a.cache.seg.length[ch];
    const int vis = detail::count_visible(a.cache.pos + seg_off, seg_len, a.q_pos[0]);
    // An even share of this head's visible keys, in whole batches (the last splits may get none).
    const int per = (vis + da.n_split - 1) / da.n_split;
    const int share = (per + kDecodeBatch - 1) / kDecodeBatch * kDecodeBatch;
    const int k_begin = min(vis, split * share), k_end = min(vis, k_begin + share);

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float q[kDecodeGroup][2 * P];
#pragma unroll
    for (int g = 0; g < kDecodeGroup; ++g)
#pragma unroll
        for (int c = 0; c < P; ++c) {
            const int d = 2 * lane + 64 * c;
            const bool on = g < G && d < D;
            const float* qh = a.q + static_cast<int64_t>(ch * group + g0 + (on ? g : 0)) * D;
            q[g][2 * c] = on ? qh[d] * a.scale : 0.0f;
            q[g][2 * c + 1] = on ? qh[d + 1] * a.scale : 0.0f;
        }
    float m[kDecodeGroup], l[kDecodeGroup], acc[kDecodeGroup][2 * P];
#pragma unroll
    for (int g = 0; g < kDecodeGroup; ++g) {
        m[g] = -INFINITY;
        l[g] = 0.0f;
#pragma unroll
        for (int i = 0; i < 2 * P; ++i) acc[g][i] = 0.0f;
    }

    for (int t0 = k_begin + warp * kDecodeBatch; t0 < k_end; t0 += kDecodeWarps * kDecodeBatch) {
        const int nb = min(kDecodeBatch, k_end - t0);
        float kx[kDecodeBatch][2 * P], vx[kDecodeBatch][2 * P];
#pragma unroll
        for (int b = 0; b < kDecodeBatch; ++b)
#pragma unroll
            for (int c = 0; c < P; ++c) {
                const int d = 2 * lane + 64 * c;
                float2 kf{0.0f, 0.0f}, vf{0.0f, 0.0f};
                if (b < nb && d < D) {
                    const int64_t e = (seg_off + t0 + b) * D + d;
                    kf = __half22float2(*reinterpret_cast<const __half2*>(a.cache.k + e));
                    vf = __half22float2(*reinterpret_cast<const __half2*>(a.cache.v + e));
                }
                kx[b][2 * c] = kf.x;
                kx[b][2 * c + 1] = kf.y;
                vx[b][2 * c] = vf.x;
                vx[b][2 * c + 1] = vf.y;
            }
#pragma unroll
        for (int g = 0; g < kDecodeGroup; ++g) {
            if (g >= G) break;  // uniform over the block
            float s[kDecodeBatch];
            float smax = -INFINITY;
#pragma unroll
            for (int b = 0; b < kDecodeBatch; ++b) {
                float dot = 0.0f;
#pragma unroll
                for (int i = 0; i < 2 * P; ++i) dot += q[g][i] * kx[b][i];
                s[b] = b < nb ? detail::warp_sum(dot) : -INFINITY;
                smax = fmaxf(smax, s[b]);
            }
            const float m_new = fmaxf(m[g], smax);  // finite: key t0 exists
            const float corr = expf(m[g] - m_new);
            float psum = 0.0f;
#pragma unroll
            for (int i = 0; i < 2 * P; ++i) acc[g][i] *= corr;
#pragma unroll
            for (int b = 0; b < kDecodeBatch; ++b) {
                const float pb = expf(s[b] - m_new);  // 0 past nb
                psum += pb;
#pragma unroll
                for (int i = 0; i < 2 * P; ++i) acc[g][i] += pb * vx[b][i];
            }
            l[g] = l[g] * corr + psum;
            m[g] = m_new;
        }
    }

    // Merge the warps' partials.
#pragma unroll
    for (int g = 0; g < kDecodeGroup; ++g) {
        if (g >= G) break;
#pragma unroll
        for (int c = 0; c < P; ++c) {
            const int d = 2 * lane + 64 * c;
            if (d < D) {
                s_acc[warp][g][d] = acc[g][2 * c];
                s_acc[warp][g][d + 1] = acc[g][2 * c + 1];
            }
        }
        if (lane == 0) {
            s_m[warp][g] = m[g];
            s_l[warp][g] = l[g];
        }
    }
    __syncthreads();
    const int64_t slots = a.n_heads;  // one row
    for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
        const int g = idx / D, d = idx % D;
        const int h = ch * group + g0 + g;
        float M = -INFINITY;
        for (int w = 0; w < kDecodeWarps; ++w) M = fmaxf(M, s_m[w][g]);
        float L = 0.0f, sum = 0.0f;
        if (M != -INFINITY)
            for (int w = 0; w < kDecodeWarps; ++w) {
                const float f = expf(s_m[w][g] - M);  // 0 for a warp without keys
                L += s_l[w][g] * f;
                sum += s_acc[w][g][d] * f;
            }
        if (da.n_split == 1) {
            store_out(a, static_cast<int64_t>(h) * D + d, L > 0.0f ? sum / L : 0.0f);  // no visible key: zeros, like the CPU
            if (a.lse && d == 0) a.lse[h] = L > 0.0f ? M + logf(L) : -INFINITY;
        } else {
            // This split's unnormalised partial, in attention_combine_kernel's layout.
            const int64_t slot = split * slots + h;
            float* part_m = a.scratch + da.n_split * slots * D;
            float* part_l = part_m + da.n_split * slots;
            a.scratch[slot * D + d] = sum;
            if (d == 0) {
                part_m[slot] = M;
                part_l[slot] = L;
            }
        }
    }
}

int round_up(int x, int m) { return (x + m - 1) / m * m; }

AttentionPlan plan_decode(int n_heads, int cache_heads, int max_len, int sm_count) {
    const int group = cache_heads > 0 ? n_heads / cache_heads : 1;
    const int64_t blocks = static_cast<int64_t>(cache_heads) * detail::ceil_div(group, kDecodeGroup);
    AttentionPlan p;
    p.split_len = round_up(std::max(max_len, 1), kDecodeBatch);
    if (max_len < 2 * kDecodeMinSplitKeys || blocks >= 2 * static_cast<int64_t>(sm_count)) return p;
    const int64_t want = detail::ceil_div(2 * static_cast<int64_t>(sm_count), blocks);
    const int n_split = static_cast<int>(std::min<int64_t>(max_len / kDecodeMinSplitKeys, want));
    if (n_split <= 1) return p;
    p.n_split = n_split;
    p.split_len = round_up(detail::ceil_div(max_len, n_split), kDecodeBatch);
    return p;
}

}  // namespace

AttentionPlan plan_attention(int n, int n_heads, int cache_heads, int max_len, int sm_count) {
    if (n == 1) return plan_decode(n_heads, cache_heads, max_len, sm_count);
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
    if (args.n == 1) {
        if (c.head_dim % 2 != 0) return cudaErrorInvalidValue;  // the decode kernel reads dimension pairs
        const dim3 grid(plan.n_split, c.n_heads, detail::ceil_div(group, kDecodeGroup));
        const DecodeArgs da{args, plan.n_split};
        if (c.head_dim <= 64) SNAPDOC_LAUNCH(grid, kDecodeWarps * 32, 0, stream, decode_attention_kernel<64>)(da);
        else SNAPDOC_LAUNCH(grid, kDecodeWarps * 32, 0, stream, decode_attention_kernel<128>)(da);
        if (plan.n_split > 1)
            SNAPDOC_LAUNCH(detail::ceil_div(args.n_heads, 4), 128, 0, stream, attention_combine_kernel)(args, plan.n_split);
        return cudaGetLastError();
    }
    if (args.seg_length || args.out_cast) return cudaErrorInvalidValue;  // single-row launches only
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
