// The tensor-core attention tile shared by the flash prefill (kernels/flash_prefill.cu) and the
// first pass of the window scores (kernels/flash_window_scores.cu). Included only by .cu files.
//
// A block is 4 warps and owns 64 "items" of one cache head: an item is one query row of one query
// head of the group that reads this cache head (GQA without repeating K/V: the group's query heads
// share every K/V tile the block loads), row-major over (row, head in group). Each warp owns 16
// items, the M side of the 16x16x16 WMMA products. Per key tile:
//   S = Q·Kᵀ         Q (scaled, f16) in matrix_a fragments for the whole loop, K from shared memory;
//   online softmax    S goes through shared memory (the WMMA fragment layout is unspecified, so
//                     row-wise max/sum cannot be done inside a fragment), two lanes per row keep the
//                     running max m and sum l, and write P = exp(S − m) as f16;
//   O = O·corr + P·V  the per-row rescale is applied to the f32 accumulator fragments through a
//                     "row map" fragment (an accumulator loaded from a matrix whose entry (r, c) is
//                     r, so element i of any accumulator fragment of this shape is in row
//                     rowmap.x[i] — portable, since the layout depends on the fragment type only).
// Masks: a query at position p sees the segment entries with p − window < position <= p (window 0:
// no lower bound), a contiguous range [lo, hi) of the ascending positions, found by binary search;
// it covers causal prefill, chunks after earlier chunks, ragged (compressed) segments and Mistral's
// sliding window. Keys outside every item's range are skipped a tile at a time.
// kPV = false is the statistics-only variant (no V, no output): it writes each item's (m, l) over a
// slice of the keys for a later combine, which is what the window scores' first pass needs.
#pragma once

#include <mma.h>

#include <climits>

#include "kernels/device_utils.cuh"
#include "kernels/types.h"

namespace snapdoc::kernels::flash {

constexpr int kWarps = 4;
constexpr int kWarpItems = 16;
constexpr int kItems = kWarps * kWarpItems;

// Keys per tile: 64 at head_dim 64, 32 at 128, so the static shared memory stays under 48 KiB.
template <int DMAX>
constexpr int kKeyTile = DMAX <= 64 ? 64 : 32;
// Row strides in shared memory. f16 rows of DMAX + 8 halves keep every 16-row fragment start
// 32-byte aligned (WMMA's requirement) while shifting consecutive rows by 16 bytes across banks.
template <int DMAX>
constexpr int kHalfLd = DMAX + 8;

struct TileArgs {
    const float* q = nullptr;  // row r, query head h at q + r * q_stride + h * head_dim
    int64_t q_stride = 0;
    const int32_t* q_pos = nullptr;
    int n = 0;
    int n_heads = 0;
    float scale = 1.0f;
    int sliding_window = 0;
    KvLayerView cache;
    // kPV: the normalised output and optional log-sum-exp [n, n_heads].
    float* out = nullptr;
    int64_t out_stride = 0;
    float* lse = nullptr;
    // !kPV: keys [split * split_len, (split + 1) * split_len) per blockIdx.z, partial m and l at
    // part_m/part_l[split * n * n_heads + row * n_heads + h].
    int split_len = 0;
    float* part_m = nullptr;
    float* part_l = nullptr;
};

// The entries [lo, hi) of an ascending position list that a query at position p sees.
__device__ __forceinline__ void visible_range(const int32_t* pos, int len, int32_t p, int window, int& lo,
                                              int& hi) {
    hi = detail::count_visible(pos, len, p);
    lo = window > 0 ? detail::count_visible(pos, hi, p - window) : 0;
}

// Copies `rows` cache entries from entry `first` on (head_dim D values each) into a shared tile of
// rows x DMAX halves (row stride LD), zeros past `valid` entries and past D columns. 16-byte copies
// when D is a multiple of 8 (every entry then starts 16-byte aligned), one value per thread else.
template <int DMAX, int LD>
__device__ __forceinline__ void load_kv_tile(__half* dst, const __half* src, int64_t first, int rows,
                                             int valid, int D) {
    if (D % 8 == 0) {
        constexpr int C = DMAX / 8;
        for (int idx = threadIdx.x; idx < rows * C; idx += blockDim.x) {
            const int j = idx / C, d = (idx % C) * 8;
            int4 v{0, 0, 0, 0};
            if (j < valid && d < D) v = *reinterpret_cast<const int4*>(src + (first + j) * D + d);
            *reinterpret_cast<int4*>(dst + j * LD + d) = v;
        }
        return;
    }
    for (int idx = threadIdx.x; idx < rows * DMAX; idx += blockDim.x) {
        const int j = idx / DMAX, d = idx % DMAX;
        dst[j * LD + d] = j < valid && d < D ? src[(first + j) * D + d] : __float2half_rn(0.0f);
    }
}

// Fills a warp's accumulator-shaped row map (see the file comment). `scratch` is 16 x ld floats of
// the warp's own shared memory, free at the call.
template <typename Acc>
__device__ __forceinline__ void load_row_map(Acc& rowmap, float* scratch, int ld) {
    const int lane = threadIdx.x & 31;
    for (int idx = lane; idx < 256; idx += 32)
        scratch[(idx / 16) * ld + idx % 16] = static_cast<float>(idx / 16);
    __syncwarp();
    nvcuda::wmma::load_matrix_sync(rowmap, scratch, ld, nvcuda::wmma::mem_row_major);
    __syncwarp();
}

template <int DMAX, bool kPV>
__global__ void __launch_bounds__(kWarps * 32) attention_tile_kernel(TileArgs a) {
    using namespace nvcuda;
    constexpr int BN = kKeyTile<DMAX>;
    constexpr int LD = kHalfLd<DMAX>;
    constexpr int SLD = BN + 4;  // f32 score rows (a multiple of 4 floats, as WMMA requires)
    constexpr int PLD = BN + 8;  // f16 probability rows
    constexpr int KD = DMAX / 16;
    static_assert(2 * BN >= kItems, "the Q staging reuses the K and V tiles");

    // K tile, V tile; before the loop the same bytes stage the block's 64 query rows as f16.
    __shared__ __align__(32) __half skv[2 * BN * LD];
    __shared__ __align__(32) float ss[kWarps][16 * SLD];
    __shared__ __align__(32) __half sp[kWarps][16 * PLD];
    __shared__ float srow[kItems];  // per item: the rescale factor of the current tile, then 1/l
    __shared__ int slo[kItems], shi[kItems];

    const int D = a.cache.head_dim;
    const int group = a.n_heads / a.cache.n_heads;
    const int ch = blockIdx.y;
    const int item0 = blockIdx.x * kItems;
    const int n_items = a.n * group;
    const int64_t seg_off = a.cache.seg.offset[ch];
    const int seg_len = a.cache.seg.length[ch];
    const int32_t* kpos = a.cache.pos + seg_off;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

    int key_begin = 0, key_end = seg_len;
    if (!kPV) {
        key_begin = blockIdx.z * a.split_len;
        key_end = min(seg_len, key_begin + a.split_len);
    }
    if (threadIdx.x < kItems) {
        const int it = item0 + threadIdx.x;
        int lo = 0, hi = 0;
        if (it < n_items) visible_range(kpos, seg_len, a.q_pos[it / group], a.sliding_window, lo, hi);
        lo = max(lo, key_begin);
        hi = min(hi, key_end);
        if (lo >= hi) lo = hi = 0;  // sees nothing here
        slo[threadIdx.x] = lo;
        shi[threadIdx.x] = hi;
    }
    __half* sq = skv;
    for (int idx = threadIdx.x; idx < kItems * DMAX; idx += blockDim.x) {
        const int i = idx / DMAX, d = idx % DMAX, it = item0 + i;
        float v = 0.0f;  // zero rows past the items and columns past head_dim: they add nothing
        if (it < n_items && d < D) {
            const int row = it / group, h = ch * group + it % group;
            v = a.q[row * a.q_stride + static_cast<int64_t>(h) * D + d] * a.scale;
        }
        sq[i * LD + d] = __float2half_rn(v);
    }
    __syncthreads();

    // Key ranges: the block's (tiles to load) and the warp's (tiles to compute), both uniform.
    int kb = INT_MAX, ke = 0, wkb = INT_MAX, wke = 0;
    for (int i = 0; i < kItems; ++i) {
        if (slo[i] >= shi[i]) continue;
        kb = min(kb, slo[i]);
        ke = max(ke, shi[i]);
        if (i / kWarpItems == warp) {
            wkb = min(wkb, slo[i]);
            wke = max(wke, shi[i]);
        }
    }

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[KD];
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) wmma::load_matrix_sync(qf[kk], sq + warp * kWarpItems * LD + kk * 16, LD);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> rowmap;
    load_row_map(rowmap, ss[warp], SLD);
    __syncthreads();  // every warp holds its Q fragments: the staging bytes become the K/V tiles

    __half* sk = skv;
    __half* sv = skv + BN * LD;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[kPV ? KD : 1];
    if (kPV) {
#pragma unroll
        for (int f = 0; f < KD; ++f) wmma::fill_fragment(o[f], 0.0f);
    }
    // Two lanes per item row: lane owns row r = lane / 2 and half the tile's columns.
    const int r = lane >> 1, c0 = (lane & 1) * (BN / 2);
    const int my_lo = slo[warp * kWarpItems + r], my_hi = shi[warp * kWarpItems + r];
    float m_run = -INFINITY, l_run = 0.0f;

    for (int t0 = kb; t0 < ke; t0 += BN) {
        load_kv_tile<DMAX, LD>(sk, a.cache.k, seg_off + t0, BN, ke - t0, D);
        if (kPV) load_kv_tile<DMAX, LD>(sv, a.cache.v, seg_off + t0, BN, ke - t0, D);
        __syncthreads();
        if (t0 < wke && t0 + BN > wkb) {  // some item of this warp sees a key of the tile
            float* s = ss[warp];
#pragma unroll
            for (int nt = 0; nt < BN / 16; ++nt) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                wmma::fill_fragment(acc, 0.0f);
#pragma unroll
                for (int kk = 0; kk < KD; ++kk) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kf;  // Kᵀ
                    wmma::load_matrix_sync(kf, sk + nt * 16 * LD + kk * 16, LD);
                    wmma::mma_sync(acc, qf[kk], kf, acc);
                }
                wmma::store_matrix_sync(s + nt * 16, acc, SLD, wmma::mem_row_major);
            }
            __syncwarp();
            float tile_max = -INFINITY;
            for (int c = c0; c < c0 + BN / 2; ++c) {
                const int key = t0 + c;
                if (key >= my_lo && key < my_hi) tile_max = fmaxf(tile_max, s[r * SLD + c]);
            }
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
            const float m_new = fmaxf(m_run, tile_max);
            // m_run = -inf and m_new finite: corr = 0 (nothing accumulated yet); both -inf: nothing seen.
            const float corr = m_new == -INFINITY ? 1.0f : expf(m_run - m_new);
            float sum = 0.0f;
            __half* p = sp[warp];
            for (int c = c0; c < c0 + BN / 2; ++c) {
                const int key = t0 + c;
                float pv = 0.0f;
                if (key >= my_lo && key < my_hi) pv = expf(s[r * SLD + c] - m_new);
                const __half ph = __float2half_rn(pv);
                p[r * PLD + c] = ph;
                sum += __half2float(ph);  // the rounded weights, so they and l agree exactly
            }
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            l_run = l_run * corr + sum;
            m_run = m_new;
            if (kPV) {
                if ((lane & 1) == 0) srow[warp * kWarpItems + r] = corr;
                __syncwarp();
#pragma unroll
                for (int f = 0; f < KD; ++f)
                    for (int i = 0; i < o[f].num_elements; ++i)
                        o[f].x[i] *= srow[warp * kWarpItems + static_cast<int>(rowmap.x[i])];
#pragma unroll
                for (int kt = 0; kt < BN / 16; ++kt) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pf;
                    wmma::load_matrix_sync(pf, p + kt * 16, PLD);
#pragma unroll
                    for (int f = 0; f < KD; ++f) {
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vf;
                        wmma::load_matrix_sync(vf, sv + kt * 16 * LD + f * 16, LD);
                        wmma::mma_sync(o[f], pf, vf, o[f]);
                    }
                }
            }
        }
        __syncthreads();  // the tile's K/V, scores and probabilities are no longer read
    }

    const int it = item0 + warp * kWarpItems + r;
    const bool valid = it < n_items;
    const int row = it / group, h = ch * group + it % group;
    if (!kPV) {
        if (valid && (lane & 1) == 0) {
            const int64_t at = static_cast<int64_t>(blockIdx.z) * a.n * a.n_heads +
                               static_cast<int64_t>(row) * a.n_heads + h;
            a.part_m[at] = m_run;
            a.part_l[at] = l_run;
        }
        return;
    }
    if ((lane & 1) == 0) {
        srow[warp * kWarpItems + r] =
            l_run > 0.0f ? 1.0f / l_run : 0.0f;  // no visible key: zeros, like the CPU
        if (valid && a.lse)
            a.lse[static_cast<int64_t>(row) * a.n_heads + h] = l_run > 0.0f ? m_run + logf(l_run) : -INFINITY;
    }
    __syncwarp();
    float* stage = ss[warp];
#pragma unroll
    for (int f = 0; f < KD; ++f) {
        for (int i = 0; i < o[f].num_elements; ++i)
            o[f].x[i] *= srow[warp * kWarpItems + static_cast<int>(rowmap.x[i])];
        wmma::store_matrix_sync(stage, o[f], SLD, wmma::mem_row_major);
        __syncwarp();
        for (int idx = lane; idx < 256; idx += 32) {
            const int rr = idx / 16, d = f * 16 + idx % 16, oi = item0 + warp * kWarpItems + rr;
            if (oi < n_items && d < D) {
                const int orow = oi / group, oh = ch * group + oi % group;
                a.out[orow * a.out_stride + static_cast<int64_t>(oh) * D + d] = stage[rr * SLD + idx % 16];
            }
        }
        __syncwarp();  // the stage is rewritten by the next fragment
    }
}

}  // namespace snapdoc::kernels::flash
