#include "kernels/attention.h"
#include "kernels/device_utils.cuh"
#include "kernels/window_scores.h"

namespace snapdoc::kernels {
namespace {

// A block owns 128 consecutive prefix keys of one query head, one thread per key; the keys stay
// in shared memory as f16 (row stride DMAX + 2 halves: an odd number of 4-byte words, so threads
// reading the same dimension of different keys hit different banks) while the window rows stream
// through in groups of kRows.
constexpr int kKeys = 128;
constexpr int kRows = 16;

template <int DMAX>
__global__ void __launch_bounds__(kKeys) window_scores_kernel(WindowScoreArgs a) {
    __shared__ __align__(16) __half sk[kKeys][DMAX + 2];
    __shared__ float sq[kRows][DMAX];
    __shared__ float slse[kRows];
    __shared__ int svis[kRows];

    const int D = a.cache.head_dim;
    const int h = blockIdx.y;
    const int ch = h / (a.n_heads / a.cache.n_heads);
    const int64_t seg_off = a.cache.seg.offset[ch];
    const int seg_len = a.cache.seg.length[ch];
    const int j0 = blockIdx.x * kKeys;
    const int key_end = min(a.n_prefix, seg_len);

    for (int idx = threadIdx.x; idx < kKeys * DMAX; idx += blockDim.x) {
        const int j = idx / DMAX, d = idx % DMAX, key = j0 + j;
        sk[j][d] = key < key_end && d < D ? a.cache.k[(seg_off + key) * D + d] : __float2half(0.0f);
    }
    const int j = j0 + threadIdx.x;
    float sum = 0.0f;
    for (int i0 = 0; i0 < a.n_window; i0 += kRows) {
        const int rows = min(kRows, a.n_window - i0);
        __syncthreads();  // the previous group's rows are no longer read
        for (int idx = threadIdx.x; idx < kRows * DMAX; idx += blockDim.x) {
            const int i = idx / DMAX, d = idx % DMAX;
            sq[i][d] = i < rows && d < D ? a.q[(i0 + i) * a.q_stride + static_cast<int64_t>(h) * D + d] * a.scale : 0.0f;
        }
        if (threadIdx.x < rows) {
            const int i = i0 + threadIdx.x;
            slse[threadIdx.x] = a.lse[static_cast<int64_t>(i) * a.n_heads + h];
            svis[threadIdx.x] = detail::count_visible(a.cache.pos + seg_off, seg_len, a.q_pos[i]);
        }
        __syncthreads();
        for (int i = 0; i < rows; ++i) {
            if (j >= svis[i]) continue;
            float dot = 0.0f;
#pragma unroll 8
            for (int d = 0; d < DMAX; d += 2) {
                const float2 k2 = __half22float2(*reinterpret_cast<const __half2*>(&sk[threadIdx.x][d]));
                dot += sq[i][d] * k2.x + sq[i][d + 1] * k2.y;
            }
            sum += expf(dot - slse[i]);
        }
    }
    if (j < a.n_prefix) a.out[static_cast<int64_t>(h) * a.n_prefix + j] = sum;
}

}  // namespace

cudaError_t window_scores(const WindowScoreArgs& args, cudaStream_t stream) {
    if (args.n_prefix <= 0) return cudaSuccess;
    const KvLayerView& c = args.cache;
    if (c.n_heads <= 0 || c.n_heads > kMaxCacheHeads || args.n_heads % c.n_heads != 0 || c.head_dim <= 0 ||
        c.head_dim > kMaxHeadDim || args.n_window < 0)
        return cudaErrorInvalidValue;
    const dim3 grid(detail::ceil_div(args.n_prefix, kKeys), args.n_heads);
    if (c.head_dim <= 64) SNAPDOC_LAUNCH(grid, kKeys, 0, stream, window_scores_kernel<64>)(args);
    else SNAPDOC_LAUNCH(grid, kKeys, 0, stream, window_scores_kernel<128>)(args);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
