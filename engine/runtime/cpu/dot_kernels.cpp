#include "engine/runtime/cpu/dot_kernels.h"

#include <cstring>

#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/x86_targets.h"

// Each instruction set's kernels carry their own target attribute (the file is compiled for the
// build's baseline); the table of float_isa() (kernel_level.h) is chosen once, at the first call.
namespace snapdoc::cpu {

namespace {

// The scalar tails and the portable level.
namespace portable {

float dot_f32_from(const float* a, const float* b, int64_t i, int64_t n, float sum) {
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
}
float dot_f16_from(const uint16_t* w, const float* x, int64_t i, int64_t n, float sum) {
    for (; i < n; ++i) sum += f16_to_f32(w[i]) * x[i];
    return sum;
}
float dot_bf16_from(const uint16_t* w, const float* x, int64_t i, int64_t n, float sum) {
    for (; i < n; ++i) sum += bf16_to_f32(w[i]) * x[i];
    return sum;
}
void axpy_from(float a, const float* x, float* y, int64_t i, int64_t n) {
    for (; i < n; ++i) y[i] += a * x[i];
}

float dot_f32(const float* a, const float* b, int64_t n) {
    return dot_f32_from(a, b, 0, n, 0.0f);
}
float dot_f16(const uint16_t* w, const float* x, int64_t n) {
    return dot_f16_from(w, x, 0, n, 0.0f);
}
float dot_bf16(const uint16_t* w, const float* x, int64_t n) {
    return dot_bf16_from(w, x, 0, n, 0.0f);
}
float dot_q8_0(const uint8_t* w, const float* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const uint8_t* block = w + b * kQ8BlockBytes;
        uint16_t d16;
        std::memcpy(&d16, block, 2);
        const int8_t* q = reinterpret_cast<const int8_t*>(block + 2);
        const float* xb = x + b * kQ8BlockSize;
        float s = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j) s += static_cast<float>(q[j]) * xb[j];
        sum += f16_to_f32(d16) * s;
    }
    return sum;
}
void axpy_f32(float a, const float* x, float* y, int64_t n) {
    axpy_from(a, x, y, 0, n);
}

}  // namespace portable

#ifdef SNAPDOC_CPU_X86
#define SNAPDOC_TARGET_DOTS_AVX2 __attribute__((target("avx2,fma,f16c")))
#define SNAPDOC_TARGET_DOTS_AVX512 __attribute__((target("avx512f,avx2,fma,f16c")))

namespace avx2 {

SNAPDOC_TARGET_DOTS_AVX2 inline float hsum(__m256 v) {
    __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    lo = _mm_hadd_ps(lo, lo);
    lo = _mm_hadd_ps(lo, lo);
    return _mm_cvtss_f32(lo);
}
SNAPDOC_TARGET_DOTS_AVX2 inline __m256 load_f32x8(const float* p) {
    return _mm256_loadu_ps(p);
}
SNAPDOC_TARGET_DOTS_AVX2 inline __m256 load_bf16x8(const uint16_t* p) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
}
SNAPDOC_TARGET_DOTS_AVX2 inline __m256 load_f16x8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Σ w·x over the first multiple of 8 values from i, in two independent chains; advances i.
template <class W, __m256 (*Load8)(const W*)>
SNAPDOC_TARGET_DOTS_AVX2 inline float dot8(const W* w, const float* x, int64_t n, int64_t& i) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(Load8(w + i), _mm256_loadu_ps(x + i), acc0);
        acc1 = _mm256_fmadd_ps(Load8(w + i + 8), _mm256_loadu_ps(x + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(Load8(w + i), _mm256_loadu_ps(x + i), acc0);
    return hsum(_mm256_add_ps(acc0, acc1));
}

SNAPDOC_TARGET_DOTS_AVX2 float dot_f32(const float* a, const float* b, int64_t n) {
    int64_t i = 0;
    const float sum = dot8<float, load_f32x8>(a, b, n, i);
    return portable::dot_f32_from(a, b, i, n, sum);
}
SNAPDOC_TARGET_DOTS_AVX2 float dot_f16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    const float sum = dot8<uint16_t, load_f16x8>(w, x, n, i);
    return portable::dot_f16_from(w, x, i, n, sum);
}
SNAPDOC_TARGET_DOTS_AVX2 float dot_bf16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    const float sum = dot8<uint16_t, load_bf16x8>(w, x, n, i);
    return portable::dot_bf16_from(w, x, i, n, sum);
}
SNAPDOC_TARGET_DOTS_AVX2 float dot_q8_0(const uint8_t* w, const float* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const uint8_t* block = w + b * kQ8BlockBytes;
        uint16_t d16;
        std::memcpy(&d16, block, 2);
        const int8_t* q = reinterpret_cast<const int8_t*>(block + 2);
        const float* xb = x + b * kQ8BlockSize;
        __m256 acc = _mm256_setzero_ps();
        for (int j = 0; j < kQ8BlockSize; j += 8) {
            const __m256 qf = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + j))));
            acc = _mm256_fmadd_ps(qf, _mm256_loadu_ps(xb + j), acc);
        }
        sum += f16_to_f32(d16) * hsum(acc);
    }
    return sum;
}
SNAPDOC_TARGET_DOTS_AVX2 void axpy_f32(float a, const float* x, float* y, int64_t n) {
    int64_t i = 0;
    const __m256 av = _mm256_set1_ps(a);
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    portable::axpy_from(a, x, y, i, n);
}

}  // namespace avx2

namespace avx512 {

SNAPDOC_TARGET_DOTS_AVX512 inline __m512 load_f16x16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
SNAPDOC_TARGET_DOTS_AVX512 inline __m512 load_bf16x16(const uint16_t* p) {
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
}

// Σ w·x over the first multiple of 64 values, 64 per step in four independent 512-bit chains;
// advances i past them. The two 256-bit chains of the AVX2 loops are bound by the FMA latency
// (16 values per latency, ~8 bytes of 16-bit weights a cycle): about one thread's share of the
// read bandwidth, so F16 decode matmuls read at 66% of the stream while an XOR of the same rows
// read at 90% (`snapdoc-bench decode-matmuls`).
template <__m512 (*Load16)(const uint16_t*)>
SNAPDOC_TARGET_DOTS_AVX512 inline float dot_16bit_512(const uint16_t* w, const float* x, int64_t n, int64_t& i) {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(Load16(w + i + 16 * k), _mm512_loadu_ps(x + i + 16 * k), acc[k]);
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
}

SNAPDOC_TARGET_DOTS_AVX512 float dot_f16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    float sum = dot_16bit_512<load_f16x16>(w, x, n, i);
    sum += avx2::dot8<uint16_t, avx2::load_f16x8>(w, x, n, i);
    return portable::dot_f16_from(w, x, i, n, sum);
}
SNAPDOC_TARGET_DOTS_AVX512 float dot_bf16(const uint16_t* w, const float* x, int64_t n) {
    int64_t i = 0;
    float sum = dot_16bit_512<load_bf16x16>(w, x, n, i);
    sum += avx2::dot8<uint16_t, avx2::load_bf16x8>(w, x, n, i);
    return portable::dot_bf16_from(w, x, i, n, sum);
}

}  // namespace avx512
#undef SNAPDOC_TARGET_DOTS_AVX2
#undef SNAPDOC_TARGET_DOTS_AVX512
#endif  // SNAPDOC_CPU_X86

struct FloatDots {
    float (*f32)(const float*, const float*, int64_t);
    float (*f16)(const uint16_t*, const float*, int64_t);
    float (*bf16)(const uint16_t*, const float*, int64_t);
    float (*q8_0)(const uint8_t*, const float*, int64_t);
    void (*axpy)(float, const float*, float*, int64_t);
};

FloatDots pick() {
    FloatDots d{portable::dot_f32, portable::dot_f16, portable::dot_bf16, portable::dot_q8_0, portable::axpy_f32};
#ifdef SNAPDOC_CPU_X86
    const FloatIsa isa = float_isa();
    if (isa == FloatIsa::Portable) return d;
    d = {avx2::dot_f32, avx2::dot_f16, avx2::dot_bf16, avx2::dot_q8_0, avx2::axpy_f32};
    if (isa == FloatIsa::Avx512) d.f16 = avx512::dot_f16, d.bf16 = avx512::dot_bf16;
#endif
    return d;
}

// Chosen once (thread-safe static): these run per key in the attention.
const FloatDots& dots() {
    static const FloatDots d = pick();
    return d;
}

}  // namespace

float dot_f32(const float* a, const float* b, int64_t n) {
    return dots().f32(a, b, n);
}

namespace {

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
        case DType::F32: return dots().f32(static_cast<const float*>(row), x, n);
        case DType::F16: return dots().f16(static_cast<const uint16_t*>(row), x, n);
        case DType::BF16: return dots().bf16(static_cast<const uint16_t*>(row), x, n);
        case DType::Q8_0: return dots().q8_0(static_cast<const uint8_t*>(row), x, n);
        default: return dot_blocks_exact(t, static_cast<const uint8_t*>(row), x, n);
    }
}

void axpy_f32(float a, const float* x, float* y, int64_t n) {
    dots().axpy(a, x, y, n);
}

}  // namespace snapdoc::cpu
