#include "engine/runtime/cpu/dot_kernels.h"

#include <cstring>

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define SNAPDOC_AVX2 1
#endif

namespace snapdoc::cpu {

#ifdef SNAPDOC_AVX2
namespace {
inline float hsum(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v);
    __m128 hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_hadd_ps(lo, lo);
    lo = _mm_hadd_ps(lo, lo);
    return _mm_cvtss_f32(lo);
}
inline __m256 load_bf16x8(const uint16_t* p) {
    __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
}
inline __m256 load_f16x8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

#if defined(__AVX512F__)
#define SNAPDOC_AVX512 1
inline __m512 load_f16x16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline __m512 load_bf16x16(const uint16_t* p) {
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
}

// Σ w·x over the first multiple of 64 values, 64 per step in four independent 512-bit chains;
// advances i past them. The two 256-bit chains of the loops below are bound by the FMA latency
// (16 values per latency, ~8 bytes of 16-bit weights a cycle): about one thread's share of the
// read bandwidth, so F16 decode matmuls read at 66% of the stream while an XOR of the same rows
// read at 90% (`snapdoc-bench decode-matmuls`).
template <__m512 (*Load16)(const uint16_t*)>
float dot_16bit_512(const uint16_t* w, const float* x, int64_t n, int64_t& i) {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(Load16(w + i + 16 * k), _mm512_loadu_ps(x + i + 16 * k), acc[k]);
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
}
#endif
}  // namespace
#endif

float dot_f32(const float* a, const float* b, int64_t n) {
    int64_t i = 0;
    float sum = 0.0f;
#ifdef SNAPDOC_AVX2
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    sum = hsum(_mm256_add_ps(acc0, acc1));
#endif
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

namespace {

float dot_f16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    float sum = 0.0f;
#ifdef SNAPDOC_AVX512
    sum = dot_16bit_512<load_f16x16>(w, x, n, i);
#endif
#ifdef SNAPDOC_AVX2
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(load_f16x8(w + i), _mm256_loadu_ps(x + i), acc0);
        acc1 = _mm256_fmadd_ps(load_f16x8(w + i + 8), _mm256_loadu_ps(x + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(load_f16x8(w + i), _mm256_loadu_ps(x + i), acc0);
    sum += hsum(_mm256_add_ps(acc0, acc1));
#endif
    for (; i < n; ++i) sum += f16_to_f32(w[i]) * x[i];
    return sum;
}

float dot_bf16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    float sum = 0.0f;
#ifdef SNAPDOC_AVX512
    sum = dot_16bit_512<load_bf16x16>(w, x, n, i);
#endif
#ifdef SNAPDOC_AVX2
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(load_bf16x8(w + i), _mm256_loadu_ps(x + i), acc0);
        acc1 = _mm256_fmadd_ps(load_bf16x8(w + i + 8), _mm256_loadu_ps(x + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(load_bf16x8(w + i), _mm256_loadu_ps(x + i), acc0);
    sum += hsum(_mm256_add_ps(acc0, acc1));
#endif
    for (; i < n; ++i) sum += bf16_to_f32(w[i]) * x[i];
    return sum;
}

float dot_q8_0(const uint8_t* w, const float* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const uint8_t* block = w + b * kQ8BlockBytes;
        uint16_t d16;
        std::memcpy(&d16, block, 2);
        const int8_t* q = reinterpret_cast<const int8_t*>(block + 2);
        const float* xb = x + b * kQ8BlockSize;
#ifdef SNAPDOC_AVX2
        __m256 acc = _mm256_setzero_ps();
        for (int j = 0; j < kQ8BlockSize; j += 8) {
            __m128i q8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + j));
            __m256 qf = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q8));
            acc = _mm256_fmadd_ps(qf, _mm256_loadu_ps(xb + j), acc);
        }
        sum += f16_to_f32(d16) * hsum(acc);
#else
        float s = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j) s += static_cast<float>(q[j]) * xb[j];
        sum += f16_to_f32(d16) * s;
#endif
    }
    return sum;
}

// Exact f32 dot for the other block types: decode one block at a time on the stack. Not a hot
// path (MatMul dots block types with 8-bit activations, quant_dot.h); kept so dot_row takes any dtype.
float dot_blocks_exact(DType t, const uint8_t* w, const float* x, int64_t n) {
    const int bs = dtype_block_size(t), bytes = dtype_block_bytes(t);
    float buf[256];
    float sum = 0.0f;
    for (int64_t b = 0; b < n / bs; ++b) {
        dequantize_row(t, w + b * bytes, buf, bs);
        sum += dot_f32(buf, x + b * bs, bs);
    }
    return sum;
}

}  // namespace

float dot_row(DType t, const void* row, const float* x, int64_t n) {
    switch (t) {
        case DType::F32: return dot_f32(static_cast<const float*>(row), x, n);
        case DType::F16: return dot_f16(static_cast<const uint16_t*>(row), x, n);
        case DType::BF16: return dot_bf16(static_cast<const uint16_t*>(row), x, n);
        case DType::Q8_0: return dot_q8_0(static_cast<const uint8_t*>(row), x, n);
        default: return dot_blocks_exact(t, static_cast<const uint8_t*>(row), x, n);
    }
}

void axpy_f32(float a, const float* x, float* y, int64_t n) {
    int64_t i = 0;
#ifdef SNAPDOC_AVX2
    __m256 av = _mm256_set1_ps(a);
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
#endif
    for (; i < n; ++i) y[i] += a * x[i];
}

}  // namespace snapdoc::cpu
