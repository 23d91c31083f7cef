#include <cfloat>

#include "kernels/device_utils.cuh"
#include "kernels/sampling.h"

namespace snapdoc::kernels {
namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kRadixBits = 8;
constexpr int kBins = 1 << kRadixBits;

__host__ __device__ inline uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__host__ __device__ inline double uniform_from(uint64_t seed, int32_t counter) {
    const uint64_t r = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(static_cast<uint32_t>(counter))));
    return static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

// (value, index) with "better" = larger value, then lower index; NaN never better.
struct Best {
    float v;
    int i;
};

__device__ __forceinline__ bool better(float v, int i, const Best& b) {
    if (v != v) return false;  // NaN
    if (b.i < 0) return true;  // nothing yet
    return v > b.v || (v == b.v && i < b.i);
}

// Block-wide best over values[0..n): every thread gets the result (index -1 when all NaN / n == 0).
__device__ Best block_best(const float* values, int n) {
    __shared__ float sv[kWarps];
    __shared__ int si[kWarps];
    Best b{0.0f, -1};
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const float v = values[i];
        if (better(v, i, b)) b = {v, i};
    }
    for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, b.v, o);
        const int oi = __shfl_xor_sync(0xffffffffu, b.i, o);
        if (oi >= 0 && better(ov, oi, b)) b = {ov, oi};
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        sv[warp] = b.v;
        si[warp] = b.i;
    }
    __syncthreads();
    Best r{0.0f, -1};
    for (int w = 0; w < kWarps; ++w)
        if (si[w] >= 0 && better(sv[w], si[w], r)) r = {sv[w], si[w]};
    __syncthreads();  // sv/si may be reused by a later call
    return r;
}

__global__ void __launch_bounds__(kThreads) argmax_kernel(const float* __restrict__ values, int n, int32_t* out) {
    const Best b = block_best(values, n);
    if (threadIdx.x == 0) out[0] = b.i < 0 ? 0 : b.i;
}

// The sampler's view of one logit: NaN -> -inf, scaled by 1/T, +inf -> FLT_MAX (sampler.cpp).
__device__ __forceinline__ float scaled(float x, float inv_t) {
    if (x != x) return -INFINITY;
    float v = x * inv_t;
    if (v == INFINITY) v = FLT_MAX;
    return v;
}

// A 64-bit key in the host sampler's total order: larger value first, then lower index. Unique per
// token, so a radix select finds an exact k-th element (ties at the cut are settled by index).
__device__ __forceinline__ uint64_t order_key(float v, int i) {
    const uint32_t u = __float_as_uint(v);
    const uint32_t k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return (static_cast<uint64_t>(k) << 32) | static_cast<uint64_t>(0xFFFFFFFFu - static_cast<uint32_t>(i));
}

__device__ __forceinline__ unsigned long long fixed_weight(float v, float m) {
    return static_cast<unsigned long long>(static_cast<double>(expf(v - m)) * kSamplingWeightScale);
}

__device__ unsigned long long block_sum_u64(unsigned long long x) {
    __shared__ unsigned long long part[kWarps];
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) part[warp] = x;
    __syncthreads();
    unsigned long long t = 0;
    for (int w = 0; w < kWarps; ++w) t += part[w];
    __syncthreads();
    return t;
}

struct SampleArgs {
    const float* logits;
    int vocab;
    DeviceSamplingParams p;
    const int32_t* counter;
    int32_t* out;
};

// One block. Passes over the vocabulary (each recomputes the scaled logit, its key and weight
// from `logits`, so nothing of vocabulary size is stored): max; top-k radix select (8 passes of
// 8 bits over the 64-bit key, only when top_k cuts); top-p radix select by mass (the same, only
// when top_p < 1); then a deterministic inverse-CDF draw in index order over the kept weights.
__global__ void __launch_bounds__(kThreads) sample_kernel(SampleArgs a) {
    __shared__ unsigned long long hist[kBins];
    __shared__ uint64_t s_prefix;
    __shared__ unsigned long long s_above;
    __shared__ int s_valid;
    __shared__ unsigned long long chunk_sum[kThreads];
    const int V = a.vocab;
    const DeviceSamplingParams& p = a.p;

    if (p.temperature <= 0.0f) {
        // Greedy: the sampler maps NaN to -inf and throws when the best is -inf.
        const Best b = block_best(a.logits, V);
        if (threadIdx.x == 0) a.out[0] = (b.i < 0 || b.v == -INFINITY) ? -1 : b.i;
        return;
    }
    const float inv_t = 1.0f / p.temperature;

    // Pass 1: the largest scaled logit and the number of candidates (not -inf).
    float m = -INFINITY;
    int valid = 0;
    for (int i = threadIdx.x; i < V; i += blockDim.x) {
        const float v = scaled(a.logits[i], inv_t);
        m = fmaxf(m, v);
        valid += v != -INFINITY;
    }
    m = detail::warp_max(m);
    {
        __shared__ float wm[kWarps];
        if ((threadIdx.x & 31) == 0) wm[threadIdx.x >> 5] = m;
        if (threadIdx.x == 0) s_valid = 0;
        __syncthreads();
        atomicAdd(&s_valid, valid);
        m = -INFINITY;
        for (int w = 0; w < kWarps; ++w) m = fmaxf(m, wm[w]);
        __syncthreads();
    }
    valid = s_valid;
    if (valid == 0) {
        if (threadIdx.x == 0) a.out[0] = -1;
        return;
    }

    // Keys >= `kmin` survive top-k (0: no cut).
    uint64_t kmin = 0;
    if (p.top_k > 0 && p.top_k < valid) {
        uint64_t prefix = 0, mask = 0;
        int remaining = p.top_k;
        for (int shift = 64 - kRadixBits; shift >= 0; shift -= kRadixBits) {
            for (int b = threadIdx.x; b < kBins; b += blockDim.x) hist[b] = 0;
            __syncthreads();
            for (int i = threadIdx.x; i < V; i += blockDim.x) {
                const float v = scaled(a.logits[i], inv_t);
                if (v == -INFINITY) continue;
                const uint64_t key = order_key(v, i);
                if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & (kBins - 1)], 1ull);
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                int b = kBins - 1;
                for (; b > 0; --b) {
                    if (hist[b] >= static_cast<unsigned long long>(remaining)) break;
                    remaining -= static_cast<int>(hist[b]);
                }
                s_prefix = prefix | (static_cast<uint64_t>(b) << shift);
                s_above = static_cast<unsigned long long>(remaining);
            }
            __syncthreads();
            prefix = s_prefix;
            remaining = static_cast<int>(s_above);
            mask |= static_cast<uint64_t>(kBins - 1) << shift;
            __syncthreads();
        }
        kmin = prefix;  // the k-th best key: exactly top_k keys are >= it
    }

    // Survivors of top-k and min-p (the largest weight is exp(0) = 1, so min-p compares with min_p).
    auto kept1 = [&](float v, int i) {
        if (v == -INFINITY) return false;
        if (order_key(v, i) < kmin) return false;
        return !(p.min_p > 0.0f && expf(v - m) < p.min_p);
    };

    uint64_t pmin = kmin;
    if (p.top_p < 1.0f) {
        unsigned long long total = 0;
        for (int i = threadIdx.x; i < V; i += blockDim.x) {
            const float v = scaled(a.logits[i], inv_t);
            if (kept1(v, i)) total += fixed_weight(v, m);
        }
        total = block_sum_u64(total);
        unsigned long long target = static_cast<unsigned long long>(static_cast<double>(p.top_p) * static_cast<double>(total));
        if (target == 0) target = 1;
        uint64_t prefix = 0, mask = 0;
        unsigned long long above = 0;
        for (int shift = 64 - kRadixBits; shift >= 0; shift -= kRadixBits) {
            for (int b = threadIdx.x; b < kBins; b += blockDim.x) hist[b] = 0;
            __syncthreads();
            for (int i = threadIdx.x; i < V; i += blockDim.x) {
                const float v = scaled(a.logits[i], inv_t);
                if (!kept1(v, i)) continue;
                const uint64_t key = order_key(v, i);
                if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & (kBins - 1)], fixed_weight(v, m));
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                // The highest bin at which the mass above plus the bin reaches the target.
                int b = kBins - 1;
                for (; b > 0; --b) {
                    if (above + hist[b] >= target) break;
                    above += hist[b];
                }
                s_prefix = prefix | (static_cast<uint64_t>(b) << shift);
                s_above = above;
            }
            __syncthreads();
            prefix = s_prefix;
            above = s_above;
            mask |= static_cast<uint64_t>(kBins - 1) << shift;
            __syncthreads();
        }
        pmin = prefix > kmin ? prefix : kmin;  // the last key of the nucleus
    }

    // Draw: each thread owns a contiguous index range; integer prefix sums make it deterministic.
    const int chunk = (V + blockDim.x - 1) / blockDim.x;
    const int lo = min(V, static_cast<int>(threadIdx.x) * chunk), hi = min(V, lo + chunk);
    auto kept = [&](float v, int i) { return kept1(v, i) && order_key(v, i) >= pmin; };
    unsigned long long mine = 0;
    for (int i = lo; i < hi; ++i) {
        const float v = scaled(a.logits[i], inv_t);
        if (kept(v, i)) mine += fixed_weight(v, m);
    }
    chunk_sum[threadIdx.x] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long run = 0;
        for (int t = 0; t < static_cast<int>(blockDim.x); ++t) {
            const unsigned long long s = chunk_sum[t];
            chunk_sum[t] = run;  // exclusive prefix
            run += s;
        }
        const double u = uniform_from(p.seed, a.counter[0]);
        unsigned long long target = static_cast<unsigned long long>(u * static_cast<double>(run));
        if (target >= run) target = run - 1;  // run >= 2^40: the best token always survives
        s_above = target;
        a.out[0] = -1;
    }
    __syncthreads();
    const unsigned long long target = s_above;
    unsigned long long cum = chunk_sum[threadIdx.x];
    if (target >= cum && target < cum + mine) {
        for (int i = lo; i < hi; ++i) {
            const float v = scaled(a.logits[i], inv_t);
            if (!kept(v, i)) continue;
            cum += fixed_weight(v, m);
            if (target < cum) {
                a.out[0] = i;
                break;
            }
        }
    }
}

}  // namespace

double sampling_uniform(uint64_t seed, int32_t counter) { return uniform_from(seed, counter); }

cudaError_t argmax(const float* values, int n, int32_t* out, cudaStream_t stream) {
    if (n < 0 || !out) return cudaErrorInvalidValue;
    SNAPDOC_LAUNCH(1, kThreads, 0, stream, argmax_kernel)(values, n, out);
    return cudaGetLastError();
}

cudaError_t sample_token(const float* logits, int vocab, const DeviceSamplingParams& params, const int32_t* counter,
                         int32_t* out, cudaStream_t stream) {
    if (vocab <= 0 || !logits || !out || (params.temperature > 0.0f && !counter)) return cudaErrorInvalidValue;
    SNAPDOC_LAUNCH(1, kThreads, 0, stream, sample_kernel)(SampleArgs{logits, vocab, params, counter, out});
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels
