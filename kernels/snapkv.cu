#include "kernels/device_utils.cuh"
#include "kernels/snapkv.h"

namespace snapdoc::kernels {
namespace {

constexpr int kThreads = 256;

// The pooled scores equal engine/kv/selection.cpp's bit for bit (so both backends keep the same
// positions): a group's mean is the sum of its heads' pooled scores in head order, divided once by
// the group size (additions and one division round the same with or without FMA contraction).
//
// Max pooling: one thread per (output head, prefix position); a maximum is exact in any order.
__global__ void max_pool_kernel(SnapPoolArgs a) {
    const int out_heads = a.n_heads / a.group;
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(out_heads) * a.n_prefix) return;
    const int c = static_cast<int>(idx / a.n_prefix), p = static_cast<int>(idx % a.n_prefix), r = a.kernel / 2;
    const int lo = max(p - r, 0), hi = min(p + r, a.n_prefix - 1);
    float acc = 0.0f;
    for (int g = 0; g < a.group; ++g) {
        const float* s = a.scores + static_cast<int64_t>(c * a.group + g) * a.n_prefix;
        float v = -INFINITY;
        for (int j = lo; j <= hi; ++j) v = fmaxf(v, s[j]);
        acc += v;
    }
    a.pooled[idx] = a.group > 1 ? acc / static_cast<float>(a.group) : acc;
}

// Average pooling: one thread per output head runs the host's running sum (in double, the same
// additions in the same order: add the entering score, then drop the leaving one), because a
// floating-point window sum depends on its order. Sequential over the prefix — about a
// millisecond per layer at 100K positions on a GPU, next to a prefill of seconds.
__global__ void avg_pool_kernel(SnapPoolArgs a) {
    const int out_heads = a.n_heads / a.group;
    const int c = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= out_heads) return;
    const int64_t n = a.n_prefix, r = a.kernel / 2;
    float* out = a.pooled + static_cast<int64_t>(c) * n;
    for (int g = 0; g < a.group; ++g) {
        const float* s = a.scores + static_cast<int64_t>(c * a.group + g) * n;
        double sum = 0;
        for (int64_t j = 0; j <= min(r, n - 1); ++j) sum += s[j];
        for (int64_t i = 0; i < n; ++i) {
            const float v = static_cast<float>(sum / a.kernel);
            out[i] = g == 0 ? 0.0f + v : out[i] + v;
            const int64_t add = i + r + 1, drop = i - r;
            if (add < n) sum += s[add];
            if (drop >= 0) sum -= s[drop];
        }
    }
    if (a.group > 1)
        for (int64_t i = 0; i < n; ++i) out[i] = out[i] / static_cast<float>(a.group);
}

// One thread per taken entry: row h, position taken[h * k + i] becomes -inf.
__global__ void mask_kernel(float* values, int rows, int n, const int32_t* taken, int k) {
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(rows) * k) return;
    const int64_t h = idx / k;
    values[h * n + taken[idx]] = -INFINITY;
}

// Float -> unsigned key with the same order (negative values flipped below positive ones).
__device__ __forceinline__ uint32_t order_key(float f) {
    const uint32_t b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// Exclusive prefix sum of v over the block (blockDim.x a multiple of 32); *total gets the sum.
__device__ __forceinline__ int block_exclusive_scan(int v, int* total) {
    __shared__ int warp_total[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    int inc = v;
    for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += t;
    }
    __syncthreads();  // warp_total may still be read by the previous call
    if (lane == 31) warp_total[warp] = inc;
    __syncthreads();
    int before = 0, sum = 0;
    for (int w = 0; w < warps; ++w) {
        before += w < warp ? warp_total[w] : 0;
        sum += warp_total[w];
    }
    *total = sum;
    return before + inc - v;
}

// One block per row. Radix select (8 bits a round, most significant first) finds the key of the
// k-th largest value and how many values equal to it are kept; a compaction pass in position order
// then writes the kept positions ascending.
__global__ void __launch_bounds__(kThreads) top_k_kernel(const float* __restrict__ values, int n, int k,
                                                         int32_t* __restrict__ out) {
    __shared__ unsigned hist[256];
    __shared__ uint32_t s_prefix;
    __shared__ int s_need;
    const float* row = values + static_cast<int64_t>(blockIdx.x) * n;
    int32_t* dst = out + static_cast<int64_t>(blockIdx.x) * k;

    uint32_t prefix = 0, prefix_mask = 0;
    int need = k;  // how many of the keys matching `prefix` are still to be kept
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) hist[i] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const uint32_t key = order_key(row[i]);
            if ((key & prefix_mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int above = 0;
            for (int b = 255; b >= 0; --b) {
                if (above + static_cast<int>(hist[b]) >= need) {
                    s_prefix = prefix | (static_cast<uint32_t>(b) << shift);
                    s_need = need - above;
                    break;
                }
                above += static_cast<int>(hist[b]);
            }
        }
        __syncthreads();
        prefix = s_prefix;
        need = s_need;
        prefix_mask |= 0xffu << shift;
        __syncthreads();  // s_prefix / hist are rewritten in the next round
    }

    int eq_taken = 0, written = 0;
    for (int base = 0; base < n; base += blockDim.x) {
        const int i = base + threadIdx.x;
        const uint32_t key = i < n ? order_key(row[i]) : 0u;
        const bool gt = i < n && key > prefix, eq = i < n && key == prefix;
        int eq_total = 0, sel_total = 0;
        const int eq_before = block_exclusive_scan(eq ? 1 : 0, &eq_total);
        const bool sel = gt || (eq && eq_taken + eq_before < need);
        const int at = block_exclusive_scan(sel ? 1 : 0, &sel_total);
        if (sel) dst[written + at] = i;
        written += sel_total;
        eq_taken += eq_total;
    }
}

// One thread per (kept entry, dimension) of one dst head (grid.y).
__global__ void gather_kernel(SnapGatherArgs a) {
    const int c = blockIdx.y, hd = a.dst.head_dim;
    const int n_window = a.window_end - a.window_begin, count = a.k + n_window;
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= static_cast<int64_t>(count) * hd) return;
    const int i = static_cast<int>(idx / hd), d = static_cast<int>(idx % hd);
    const int sh = c / (a.dst.n_heads / a.src.n_heads);
    const int e = i < a.k ? a.kept[static_cast<int64_t>(c) * a.k + i] : a.window_begin + (i - a.k);
    const int64_t from = a.src.seg.offset[sh] + e;
    const int64_t to = a.dst.seg.offset[c] + a.dst.seg.length[c] + i;
    a.dst.k[to * hd + d] = a.src.k[from * hd + d];
    a.dst.v[to * hd + d] = a.src.v[from * hd + d];
    if (d == 0) a.dst.pos[to] = a.src.pos[from];
}

}  // namespace

cudaError_t snapkv_pool(const SnapPoolArgs& a, cudaStream_t stream) {
    if (a.n_prefix <= 0) return cudaSuccess;
    if (a.n_heads <= 0 || a.group <= 0 || a.n_heads % a.group != 0 || a.kernel <= 0 || a.kernel % 2 == 0)
        return cudaErrorInvalidValue;
    const int out_heads = a.n_heads / a.group;
    if (a.max_pool) {
        const int64_t total = static_cast<int64_t>(out_heads) * a.n_prefix;
        SNAPDOC_LAUNCH(detail::ceil_div(total, kThreads), kThreads, 0, stream, max_pool_kernel)(a);
    } else {
        SNAPDOC_LAUNCH(detail::ceil_div(static_cast<int64_t>(out_heads), 32), 32, 0, stream, avg_pool_kernel)(a);
    }
    return cudaGetLastError();
}

cudaError_t mask_taken(const float* values, int rows, int n, const int32_t* taken, int k, float* out,
                       cudaStream_t stream) {
    if (rows <= 0 || n <= 0) return cudaSuccess;
    if (k < 0 || k > n) return cudaErrorInvalidValue;
    const cudaError_t e = cudaMemcpyAsync(out, values, static_cast<std::size_t>(rows) * n * sizeof(float),
                                          cudaMemcpyDeviceToDevice, stream);
    if (e != cudaSuccess || k == 0) return e;
    SNAPDOC_LAUNCH(detail::ceil_div(static_cast<int64_t>(rows) * k, kThreads), kThreads, 0, stream, mask_kernel)(
        out, rows, n, taken, k);
    return cudaGetLastError();
}

cudaError_t top_k_rows(const float* values, int rows, int n, int k, int32_t* out, cudaStream_t stream) {
    if (rows <= 0) return cudaSuccess;
    if (k < 1 || k > n) return cudaErrorInvalidValue;
    SNAPDOC_LAUNCH(rows, kThreads, 0, stream, top_k_kernel)(values, n, k, out);
    return cudaGetLastError();
}

cudaError_t snapkv_gather(const SnapGatherArgs& a, cudaStream_t stream) {
    const int count = a.k + a.window_end - a.window_begin;
    if (count <= 0 || a.dst.n_heads <= 0) return cudaSuccess;
    if (a.src.n_heads <= 0 || a.dst.n_heads % a.src.n_heads != 0 || a.dst.head_dim != a.src.head_dim || a.k < 0 ||
        a.window_end < a.window_begin || a.dst.n_heads > kMaxCacheHeads)
        return cudaErrorInvalidValue;
    const dim3 grid(detail::ceil_div(static_cast<int64_t>(count) * a.dst.head_dim, kThreads), a.dst.n_heads);
    SNAPDOC_LAUNCH(grid, kThreads, 0, stream, gather_kernel)(a);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
