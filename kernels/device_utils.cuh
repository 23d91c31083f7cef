// Device-side helpers shared by the kernel files: warp reductions and conversions between the
// storage types and the f32 every kernel computes in. Included only by .cu files.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

namespace snapdoc::kernels::detail {

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Sum over a whole block (blockDim.x a multiple of 32, at most 1024). Every thread gets the result.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();  // `partial` may still be read by a previous call
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < warps ? partial[lane] : 0.0f;
    return warp_sum(v);
}

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// Number of entries of an ascending position list that are <= p (upper_bound).
__device__ __forceinline__ int count_visible(const int32_t* pos, int n, int32_t p) {
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (pos[mid] <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

inline int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace snapdoc::kernels::detail

// Kernel launches are written SNAPDOC_LAUNCH(grid, block, smem, stream, kernel)(args...) instead of
// kernel<<<grid, block, smem, stream>>>(args...). Under nvcc it is exactly that launch; g++ cannot
// parse `<<<`, and the CPU emulation (tests/cuda_emu, SNAPDOC_CUDA_EMU) turns it into a call of its
// block executor, so the emulated test suite runs these very kernel files. The kernel comes last
// because template arguments (`convert_kernel<S, D>`) contain commas.
// Dynamic shared memory likewise: SNAPDOC_DYNAMIC_SHARED(float, buf) for `extern __shared__ float buf[]`.
#ifdef SNAPDOC_CUDA_EMU
#define SNAPDOC_LAUNCH(grid, block, smem, stream, ...) CUDA_EMU_LAUNCH(grid, block, smem, stream, __VA_ARGS__)
#define SNAPDOC_DYNAMIC_SHARED(T, name) CUDA_EMU_DYNAMIC_SHARED(T, name)
#else
#define SNAPDOC_LAUNCH(grid, block, smem, stream, ...) __VA_ARGS__<<<grid, block, smem, stream>>>
#define SNAPDOC_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#endif

// Calls `body` with `T` bound to the C++ type of a Dt (F32/F16/BF16). Host side of the .cu files.
#define SNAPDOC_DISPATCH_DT(dt, T, ...)                                   \
    do {                                                                  \
        switch (dt) {                                                     \
            case ::snapdoc::kernels::Dt::F32: {                           \
                using T = float;                                          \
                __VA_ARGS__;                                              \
            } break;                                                      \
            case ::snapdoc::kernels::Dt::F16: {                           \
                using T = __half;                                         \
                __VA_ARGS__;                                              \
            } break;                                                      \
            case ::snapdoc::kernels::Dt::BF16: {                          \
                using T = __nv_bfloat16;                                  \
                __VA_ARGS__;                                              \
            } break;                                                      \
            default:                                                      \
                return cudaErrorInvalidValue;                             \
        }                                                                 \
    } while (0)
