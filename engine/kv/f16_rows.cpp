#include "engine/kv/f16_rows.h"

#include <atomic>
#include <algorithm>
#include <cstring>

#include "engine/common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SNAPDOC_F16_X86 1
#endif

namespace snapdoc {

namespace f16_portable {

namespace {

inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

inline float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / NaN (payload kept)
    if (exp != 0) return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
    // Zero or subnormal: mant units of 2^-24, exact in f32.
    return bits_float(sign | float_bits(static_cast<float>(mant) * 0x1p-24f));
}

inline uint16_t float_to_half(float f) {
    const uint32_t x = float_bits(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((a >> 13) & 0x1ffu);  // NaN stays NaN
    if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 (the midpoint above 65504) and inf -> inf
    if (a >= 0x38800000u) {
        // Normal half: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even;
        // a carry out of the significand correctly bumps the exponent.
        const uint32_t r = a - (112u << 23);
        return sign | static_cast<uint16_t>((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
    }
    // Below 2^-14: a subnormal half counted in units of 2^-24, i.e. significand >> (126 - exp).
    const uint32_t e = a >> 23;
    const uint32_t shift = 126u - e;
    if (shift > 24) return sign;  // below 2^-25: rounds to zero
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may reach 0x400, the smallest normal: correct
    return sign | static_cast<uint16_t>(q);
}

}  // namespace

void to_f32(const uint16_t* src, float* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void to_f16(const float* src, uint16_t* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = float_to_half(src[i]);
}

}  // namespace f16_portable

namespace {

#ifdef SNAPDOC_F16_X86
// Compiled for F16C whatever the build's -march; only called after the CPU check below.
__attribute__((target("avx,f16c"))) void f16c_to_f32(const uint16_t* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(a));
        _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(b));
    }
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i,
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    if (i < n) f16_portable::to_f32(src + i, dst + i, n - i);
}

__attribute__((target("avx,f16c"))) void f16c_to_f16(const float* src, uint16_t* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h =
            _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
    if (i < n) f16_portable::to_f16(src + i, dst + i, n - i);
}
#endif

struct Kernels {
    const char* name;
    void (*to_f32)(const uint16_t*, float*, int64_t);
    void (*to_f16)(const float*, uint16_t*, int64_t);
};

const Kernels kPortable{"portable", f16_portable::to_f32, f16_portable::to_f16};

const Kernels& pick() {
#ifdef SNAPDOC_F16_X86
    static const Kernels f16c{"f16c", f16c_to_f32, f16c_to_f16};
    if (__builtin_cpu_supports("avx") && cpu_has_f16c()) return f16c;
#endif
    return kPortable;
}

const Kernels& kernels() {
    static const Kernels& k = pick();  // thread-safe once
    return k;
}

}  // namespace

void f16_to_f32_row(const uint16_t* src, float* dst, int64_t n) {
    kernels().to_f32(src, dst, n);
}
void f32_to_f16_row(const float* src, uint16_t* dst, int64_t n) {
    kernels().to_f16(src, dst, n);
}
const char* f16_row_kernels_name() {
    return kernels().name;
}

int64_t first_non_finite_f16(const uint16_t* src, int64_t n) {
    // In blocks of 4096 with a branch-free OR inside (vectorised), so the scan runs at memory speed.
    constexpr int64_t kBlock = 4096;
    for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t e = std::min(n, b + kBlock);
        unsigned any = 0;
        for (int64_t i = b; i < e; ++i) any |= (src[i] & 0x7c00u) == 0x7c00u;
        if (any)
            for (int64_t i = b; i < e; ++i)
                if ((src[i] & 0x7c00u) == 0x7c00u) return i;
    }
    return -1;
}

int64_t first_non_finite_f32(const float* src, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, src + i, sizeof u);
        if ((u & 0x7f800000u) == 0x7f800000u) return i;
    }
    return -1;
}

}  // namespace snapdoc
