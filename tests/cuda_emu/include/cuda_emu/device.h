// CUDA emulation (tests/cuda_emu): what nvcc provides to device code, for g++. Force-included
// (-include) into every kernels/*.cu compiled for the emulated suite, so the kernel files compile
// unchanged. Built-in variables read the executor's current fiber (threadIdx) and block (blockIdx);
// __shared__ is `static`, which is per-block shared memory because the blocks of a launch run one
// after another; barriers and warp ops go to the executor (executor.h).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_emu/executor.h"

#define SNAPDOC_CUDA_EMU 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __constant__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

#define threadIdx (*::cuda_emu::detail::g_thread_idx)
#define blockIdx (static_cast<const uint3&>(::cuda_emu::detail::g_block_idx))
#define blockDim (static_cast<const dim3&>(::cuda_emu::detail::g_block_dim))
#define gridDim (static_cast<const dim3&>(::cuda_emu::detail::g_grid_dim))
constexpr int warpSize = 32;

// Dynamic shared memory (the launch's third parameter). `extern __shared__ T name[];` cannot be
// expressed with a macro for `__shared__`, so kernels declare it with SNAPDOC_DYNAMIC_SHARED
// (kernels/device_utils.cuh), which maps to this.
#define CUDA_EMU_DYNAMIC_SHARED(T, name) T* name = reinterpret_cast<T*>(::cuda_emu::detail::g_dynamic_smem)

// ---- barriers, warp shuffles and votes -------------------------------------------------------
#define __syncthreads() ::cuda_emu::detail::block_barrier(__FILE__, __LINE__)
#define __syncthreads_count(p) \
    ::cuda_emu::detail::block_barrier_reduce(::cuda_emu::detail::BlockReduce::Count, (p), __FILE__, __LINE__)
#define __syncthreads_and(p) \
    ::cuda_emu::detail::block_barrier_reduce(::cuda_emu::detail::BlockReduce::And, (p), __FILE__, __LINE__)
#define __syncthreads_or(p) \
    ::cuda_emu::detail::block_barrier_reduce(::cuda_emu::detail::BlockReduce::Or, (p), __FILE__, __LINE__)

namespace cuda_emu::detail {
template <typename T>
inline uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp exchange of a type larger than 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <typename T>
inline T shuffle(const char* file, int line, WarpOp op, unsigned mask, T v, int param, int width = 32) {
    return from_bits<T>(warp_exchange(op, mask, to_bits(v), param, width, file, line));
}
inline uint64_t vote(const char* file, int line, WarpOp op, unsigned mask, bool pred) {
    return warp_exchange(op, mask, pred ? 1 : 0, 0, 32, file, line);
}
inline void sync_warp(const char* file, int line, unsigned mask = 0xffffffffu) {
    warp_exchange(WarpOp::Sync, mask, 0, 0, 32, file, line);
}
}  // namespace cuda_emu::detail

#define __shfl_sync(...) ::cuda_emu::detail::shuffle(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Idx, __VA_ARGS__)
#define __shfl_xor_sync(...) ::cuda_emu::detail::shuffle(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Xor, __VA_ARGS__)
#define __shfl_down_sync(...) ::cuda_emu::detail::shuffle(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Down, __VA_ARGS__)
#define __shfl_up_sync(...) ::cuda_emu::detail::shuffle(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Up, __VA_ARGS__)
#define __ballot_sync(mask, p) \
    static_cast<unsigned>(::cuda_emu::detail::vote(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Ballot, (mask), (p) != 0))
#define __any_sync(mask, p) \
    static_cast<int>(::cuda_emu::detail::vote(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::Any, (mask), (p) != 0))
#define __all_sync(mask, p) \
    static_cast<int>(::cuda_emu::detail::vote(__FILE__, __LINE__, ::cuda_emu::detail::WarpOp::All, (mask), (p) != 0))
#define __syncwarp(...) ::cuda_emu::detail::sync_warp(__FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__)
#define __activemask() 0xffffffffu

// ---- atomics: fibers switch only at barriers, so a plain read-modify-write is atomic -----------
template <typename T>
inline T atomicAdd(T* p, T v) {
    const T old = *p;
    *p = old + v;
    return old;
}
template <typename T>
inline T atomicSub(T* p, T v) {
    const T old = *p;
    *p = old - v;
    return old;
}
template <typename T>
inline T atomicMax(T* p, T v) {
    const T old = *p;
    *p = old < v ? v : old;
    return old;
}
template <typename T>
inline T atomicMin(T* p, T v) {
    const T old = *p;
    *p = v < old ? v : old;
    return old;
}
template <typename T>
inline T atomicExch(T* p, T v) {
    const T old = *p;
    *p = v;
    return old;
}
template <typename T>
inline T atomicCAS(T* p, T cmp, T v) {
    const T old = *p;
    if (old == cmp) *p = v;
    return old;
}
template <typename T>
inline T atomicOr(T* p, T v) {
    const T old = *p;
    *p = old | v;
    return old;
}
template <typename T>
inline T atomicAnd(T* p, T v) {
    const T old = *p;
    *p = old & v;
    return old;
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    const unsigned old = *p;
    *p = old >= limit ? 0u : old + 1u;
    return old;
}
inline void __threadfence() {}
inline void __threadfence_block() {}

// ---- math and bit intrinsics ------------------------------------------------------------------
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
// nvcc never fuses the _rn intrinsics into an FMA (kernels use them where a value must match the
// CPU's two roundings); the volatile keeps the host compiler from contracting them after inlining.
inline float __fmul_rn(float a, float b) {
    volatile float r = a * b;
    return r;
}
inline float __fadd_rn(float a, float b) {
    volatile float r = a + b;
    return r;
}
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __int_as_float(int v) { return cuda_emu::detail::from_bits<float>(static_cast<uint32_t>(v)); }
inline int __float_as_int(float v) { return static_cast<int>(static_cast<uint32_t>(cuda_emu::detail::to_bits(v))); }
inline float __uint_as_float(unsigned v) { return cuda_emu::detail::from_bits<float>(v); }
inline unsigned __float_as_uint(float v) { return static_cast<uint32_t>(cuda_emu::detail::to_bits(v)); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(unsigned v) { return v ? __builtin_clz(v) : 32; }
inline int __ffs(unsigned v) { return __builtin_ffs(static_cast<int>(v)); }
inline unsigned __brev(unsigned v) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned __lanemask_lt() { return (1u << ::cuda_emu::detail::lane_id()) - 1u; }
