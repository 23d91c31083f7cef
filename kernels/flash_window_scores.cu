#include <algorithm>

#include "kernels/attention.h"
#include "kernels/flash_attention_tile.cuh"
#include "kernels/flash_window_scores.h"

namespace snapdoc::kernels {
namespace {

constexpr int kWarpKeys = 32;                          // keys per warp in the second pass: one per lane
constexpr int kBlockKeys = flash::kWarps * kWarpKeys;  // keys per block
constexpr int kMinSplitKeys = 256;                     // a key slice shorter than this does not pay

struct ScoreArgs {
    FlashWindowScoreArgs a;
    const float* lse;
};

// One thread per (window row, query head): merges the key slices' (m, l) into log Σ exp.
__global__ void combine_stats_kernel(const float* part_m, const float* part_l, int n_split, int slots,
                                     float* lse) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= slots) return;
    float mx = -INFINITY;
    for (int s = 0; s < n_split; ++s) mx = fmaxf(mx, part_m[static_cast<int64_t>(s) * slots + slot]);
    if (mx == -INFINITY) {
        lse[slot] = -INFINITY;
        return;
    }
    float total = 0.0f;
    for (int s = 0; s < n_split; ++s) {
        const int64_t at = static_cast<int64_t>(s) * slots + slot;
        if (part_l[at] > 0.0f) total += part_l[at] * expf(part_m[at] - mx);
    }
    lse[slot] = mx + logf(total);
}

template <int DMAX>
__global__ void __launch_bounds__(flash::kWarps * 32) window_score_tile_kernel(ScoreArgs sa) {
    using namespace nvcuda;
    const FlashWindowScoreArgs& a = sa.a;
    constexpr int LD = flash::kHalfLd<DMAX>;
    constexpr int SLD = kWarpKeys + 4;
    constexpr int KD = DMAX / 16;
    __shared__ __align__(32) __half sk[kBlockKeys * LD];
    __shared__ __align__(32) __half sq[16 * LD];
    __shared__ __align__(32) float ss[flash::kWarps][16 * SLD];
    __shared__ float slse[16];
    __shared__ int slo[16], shi[16];

    const int D = a.cache.head_dim;
    const int group = a.n_heads / a.cache.n_heads;
    const int ch = blockIdx.y;
    const int64_t seg_off = a.cache.seg.offset[ch];
    const int seg_len = a.cache.seg.length[ch];
    const int32_t* kpos = a.cache.pos + seg_off;
    const int j0 = blockIdx.x * kBlockKeys;
    const int key_end = min(a.n_prefix, seg_len);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wk0 = j0 + warp * kWarpKeys;  // the warp's first key
    const int my_key = wk0 + lane;

    flash::load_kv_tile<DMAX, LD>(sk, a.cache.k, seg_off + j0, kBlockKeys, key_end - j0, D);
    const int row_tiles = (a.n_window + 15) / 16;
    for (int hg = 0; hg < group; ++hg) {
        const int h = ch * group + hg;
        float sum = 0.0f;
        for (int rt = 0; rt < row_tiles; ++rt) {
            __syncthreads();  // the K tile is written; the previous row tile is no longer read
            for (int idx = threadIdx.x; idx < 16 * DMAX; idx += blockDim.x) {
                const int i = idx / DMAX, d = idx % DMAX, row = rt * 16 + i;
                const float v = row < a.n_window && d < D
                                    ? a.q[row * a.q_stride + static_cast<int64_t>(h) * D + d] * a.scale
                                    : 0.0f;
                sq[i * LD + d] = __float2half_rn(v);
            }
            if (threadIdx.x < 16) {
                const int row = rt * 16 + threadIdx.x;
                int lo = 0, hi = 0;
                float l = -INFINITY;
                if (row < a.n_window) {
                    l = sa.lse[static_cast<int64_t>(row) * a.n_heads + h];
                    flash::visible_range(kpos, seg_len, a.q_pos[row], a.sliding_window, lo, hi);
                }
                if (l == -INFINITY) lo = hi = 0;  // a row that sees no key adds nothing
                slse[threadIdx.x] = l;
                slo[threadIdx.x] = lo;
                shi[threadIdx.x] = min(hi, key_end);
            }
            __syncthreads();
            bool any = false;  // uniform over the warp
            for (int i = 0; i < 16; ++i) any |= slo[i] < shi[i] && slo[i] < wk0 + kWarpKeys && shi[i] > wk0;
            if (!any) continue;
            float* s = ss[warp];
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[KD];
#pragma unroll
            for (int kk = 0; kk < KD; ++kk) wmma::load_matrix_sync(qf[kk], sq + kk * 16, LD);
#pragma unroll
            for (int nt = 0; nt < kWarpKeys / 16; ++nt) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                wmma::fill_fragment(acc, 0.0f);
#pragma unroll
                for (int kk = 0; kk < KD; ++kk) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kf;  // Kᵀ
                    wmma::load_matrix_sync(kf, sk + (warp * kWarpKeys + nt * 16) * LD + kk * 16, LD);
                    wmma::mma_sync(acc, qf[kk], kf, acc);
                }
                wmma::store_matrix_sync(s + nt * 16, acc, SLD, wmma::mem_row_major);
            }
            __syncwarp();
            for (int i = 0; i < 16; ++i)
                if (my_key >= slo[i] && my_key < shi[i]) sum += expf(s[i * SLD + lane] - slse[i]);
        }
        if (my_key < a.n_prefix) a.out[static_cast<int64_t>(h) * a.n_prefix + my_key] = sum;
    }
}

}  // namespace

int flash_window_score_splits(int n_window, int n_heads, int cache_heads, int max_len, int sm_count) {
    if (n_window <= 0 || cache_heads <= 0 || max_len <= 2 * kMinSplitKeys) return 1;
    const int group = n_heads / cache_heads;
    const int64_t blocks =
        static_cast<int64_t>(detail::ceil_div(static_cast<int64_t>(n_window) * group, flash::kItems)) *
        cache_heads;
    if (blocks >= 2 * static_cast<int64_t>(sm_count)) return 1;
    const int64_t want = detail::ceil_div(2 * static_cast<int64_t>(sm_count), blocks);
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, max_len / kMinSplitKeys)));
}

int64_t flash_window_scores_scratch_floats(int n_window, int n_heads, int cache_heads, int max_len,
                                           int sm_count) {
    const int64_t slots = static_cast<int64_t>(std::max(n_window, 0)) * n_heads;
    return slots * (1 + 2 * static_cast<int64_t>(flash_window_score_splits(n_window, n_heads, cache_heads,
                                                                           max_len, sm_count)));
}

cudaError_t flash_window_scores(const FlashWindowScoreArgs& args, cudaStream_t stream) {
    if (args.n_prefix <= 0) return cudaSuccess;
    const KvLayerView& c = args.cache;
    if (c.n_heads <= 0 || c.n_heads > kMaxCacheHeads || args.n_heads % c.n_heads != 0 || c.head_dim <= 0 ||
        c.head_dim > kMaxHeadDim || args.n_window < 0 || args.sliding_window < 0 ||
        (args.n_window > 0 && !args.scratch))
        return cudaErrorInvalidValue;
    const int group = args.n_heads / c.n_heads;
    const int slots = args.n_window * args.n_heads;
    const int n_split =
        flash_window_score_splits(args.n_window, args.n_heads, c.n_heads, args.max_len, args.sm_count);
    float* lse = args.scratch;
    if (args.n_window > 0) {
        // Pass 1: (m, l) of every window row per key slice, then lse.
        flash::TileArgs t;
        t.q = args.q;
        t.q_stride = args.q_stride;
        t.q_pos = args.q_pos;
        t.n = args.n_window;
        t.n_heads = args.n_heads;
        t.scale = args.scale;
        t.sliding_window = args.sliding_window;
        t.cache = c;
        t.split_len = detail::ceil_div(std::max(args.max_len, 1), n_split);
        t.part_m = args.scratch + slots;
        t.part_l = t.part_m + static_cast<int64_t>(n_split) * slots;
        const dim3 grid(detail::ceil_div(static_cast<int64_t>(args.n_window) * group, flash::kItems),
                        c.n_heads, n_split);
        if (c.head_dim <= 64)
            SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, flash::attention_tile_kernel<64, false>)(t);
        else
            SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, flash::attention_tile_kernel<128, false>)(t);
        SNAPDOC_LAUNCH(detail::ceil_div(slots, 128), 128, 0, stream, combine_stats_kernel)
        (t.part_m, t.part_l, n_split, slots, lse);
    }
    // Pass 2: per-key sums of the window's probabilities (zeros without a window).
    const ScoreArgs sa{args, lse};
    const dim3 grid(detail::ceil_div(args.n_prefix, kBlockKeys), c.n_heads);
    if (c.head_dim <= 64)
        SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, window_score_tile_kernel<64>)(sa);
    else
        SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, window_score_tile_kernel<128>)(sa);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
