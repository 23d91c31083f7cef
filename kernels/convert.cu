#include "kernels/convert.h"
#include "kernels/device_utils.cuh"

namespace snapdoc::kernels {
namespace {

constexpr int kThreads = 256;

template <typename S, typename D>
__global__ void convert_kernel(const S* __restrict__ src, D* __restrict__ dst, int64_t count) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        dst[i] = detail::from_float<D>(detail::to_float(src[i]));
}

// GGML Q8_0: 34-byte blocks (f16 scale, then 32 int8). Bytes are read one by one because blocks
// are not 2-byte aligned in general.
template <typename D>
__global__ void q8_0_kernel(const uint8_t* __restrict__ src, D* __restrict__ dst, int64_t count) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const uint8_t* block = src + (i / 32) * 34;
        const unsigned short bits = static_cast<unsigned short>(block[0] | (block[1] << 8));
        const float scale = __half2float(__ushort_as_half(bits));
        const int8_t q = static_cast<int8_t>(block[2 + i % 32]);
        dst[i] = detail::from_float<D>(scale * static_cast<float>(q));
    }
}

int grid_for(int64_t count) {
    // Grid-stride loops: enough blocks to fill any current GPU, independent of `count`.
    return static_cast<int>(count / kThreads + 1 < 65536 ? count / kThreads + 1 : 65536);
}

template <typename D>
cudaError_t convert_to(const void* src, Dt src_dt, D* dst, int64_t count, cudaStream_t stream) {
    const int grid = grid_for(count);
    if (src_dt == Dt::Q8_0) {
        SNAPDOC_LAUNCH(grid, kThreads, 0, stream, q8_0_kernel<D>)(static_cast<const uint8_t*>(src), dst, count);
        return cudaGetLastError();
    }
    SNAPDOC_DISPATCH_DT(src_dt, S, SNAPDOC_LAUNCH(grid, kThreads, 0, stream, convert_kernel<S, D>)(static_cast<const S*>(src), dst, count));
    return cudaGetLastError();
}

}  // namespace

cudaError_t convert(const void* src, Dt src_dt, void* dst, Dt dst_dt, int64_t count, cudaStream_t stream) {
    if (count <= 0) return cudaSuccess;
    SNAPDOC_DISPATCH_DT(dst_dt, D, return convert_to<D>(src, src_dt, static_cast<D*>(dst), count, stream));
    return cudaSuccess;
}

}  // namespace snapdoc::kernels
