#include "kernels/device_utils.cuh"
#include "kernels/norm.h"

namespace snapdoc::kernels {
namespace {

// One block per row. The sum of squares is f32 per thread, then a tree over the block: the error
// stays near f32 epsilon (a serial f32 sum over 4K+ values would not; the CPU backend uses double).
template <typename T>
__global__ void rms_norm_kernel(const float* __restrict__ x, const float* __restrict__ w, T* __restrict__ out,
                                int dim, float eps) {
    const int64_t base = static_cast<int64_t>(blockIdx.x) * dim;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) {
        const float v = x[base + i];
        ss += v * v;
    }
    ss = detail::block_sum(ss);
    const float inv = rsqrtf(ss / static_cast<float>(dim) + eps);
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        out[base + i] = detail::from_float<T>(x[base + i] * inv * w[i]);
}

}  // namespace

cudaError_t rms_norm(const float* x, const float* weight, void* out, Dt out_dt, int n, int dim, float eps,
                     cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    const int threads = dim >= 1024 ? 256 : 128;
    SNAPDOC_DISPATCH_DT(out_dt, T,
                        SNAPDOC_LAUNCH(n, threads, 0, stream, rms_norm_kernel<T>)(x, weight, static_cast<T*>(out), dim, eps));
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
