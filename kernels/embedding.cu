#include "kernels/device_utils.cuh"
#include "kernels/embedding.h"

namespace snapdoc::kernels {
namespace {

// One block per token row; threads stride over the row (coalesced on both sides).
template <typename T>
__global__ void embed_kernel(const T* __restrict__ table, int dim, const int32_t* __restrict__ tokens,
                             float* __restrict__ out) {
    const int r = blockIdx.x;
    const T* src = table + static_cast<int64_t>(tokens[r]) * dim;
    float* dst = out + static_cast<int64_t>(r) * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) dst[d] = detail::to_float(src[d]);
}

}  // namespace

cudaError_t embed_rows(const void* table, Dt dt, int dim, const int32_t* tokens, int n, float* out,
                       cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    SNAPDOC_DISPATCH_DT(dt, T, SNAPDOC_LAUNCH(n, 256, 0, stream, embed_kernel<T>)(static_cast<const T*>(table), dim, tokens, out));
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
