// Element-type conversions. The scalar f16/bf16 codecs work on bit patterns so they are exact for
// every input (subnormals, infinities, NaN payloads) and do not depend on the FPU rounding mode;
// the row converters use F16C when the compiler targets it, which gives the same results.
#include "engine/model/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#ifdef __F16C__
#include <immintrin.h>
#endif

namespace snapdoc {

namespace {

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t load_u16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

void dequantize_f16(const uint8_t* src, float* dst, int64_t n) {
    int64_t i = 0;
#ifdef __F16C__
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
#endif
    for (; i < n; ++i) dst[i] = f16_to_f32(load_u16(src + 2 * i));
}

void quantize_f16(const float* src, uint8_t* dst, int64_t n) {
    int64_t i = 0;
#ifdef __F16C__
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i), h);
    }
#endif
    for (; i < n; ++i) {
        uint16_t h = f32_to_f16(src[i]);
        std::memcpy(dst + 2 * i, &h, sizeof h);
    }
}

void dequantize_bf16(const uint8_t* src, float* dst, int64_t n) {
    // A plain loop: the compiler vectorises the shift well enough.
    for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(load_u16(src + 2 * i));
}

void quantize_bf16(const float* src, uint8_t* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        uint16_t b = f32_to_bf16(src[i]);
        std::memcpy(dst + 2 * i, &b, sizeof b);
    }
}

void dequantize_q8_0(const uint8_t* src, float* dst, int64_t n) {
    const int64_t blocks = n / kQ8BlockSize;
    for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t* block = src + b * kQ8BlockBytes;
        const float d = f16_to_f32(load_u16(block));
        const int8_t* q = reinterpret_cast<const int8_t*>(block + 2);
        float* out = dst + b * kQ8BlockSize;
        for (int j = 0; j < kQ8BlockSize; ++j) out[j] = d * static_cast<float>(q[j]);
    }
}

}  // namespace

std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::Q8_0: return "Q8_0";
    }
    return "unknown";
}

std::size_t dtype_row_bytes(DType t, int64_t n) {
    if (n <= 0) return 0;
    const auto un = static_cast<std::size_t>(n);
    switch (t) {
        case DType::F32: return 4 * un;
        case DType::F16:
        case DType::BF16: return 2 * un;
        // Rounded up so a caller that forgot dtype_row_fits never under-sizes a buffer.
        case DType::Q8_0: return (un + kQ8BlockSize - 1) / kQ8BlockSize * kQ8BlockBytes;
    }
    return 0;
}

bool dtype_row_fits(DType t, int64_t n) {
    if (n < 0) return false;
    return t != DType::Q8_0 || n % kQ8BlockSize == 0;
}

float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        // Zero or subnormal: mant * 2^-24 is exact in f32.
        const float v = static_cast<float>(mant) * 0x1p-24f;
        return bits_float(float_bits(v) | sign);
    }
    if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / NaN (payload kept)
    return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t f32_to_f16(float f) {
    const uint32_t x = float_bits(f);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {
        // NaN: keep the top payload bits and force a quiet NaN so it never becomes infinity.
        return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65536 (or inf): inf
    if (ax < 0x38800000u) {
        // Below the smallest normal half (2^-14): a subnormal half, counted in units of 2^-24.
        if (ax <= 0x33000000u) return sign;  // <= 2^-25 rounds (ties-to-even) to zero
        const uint32_t e = ax >> 23;
        const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // 14..24
        uint32_t r = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u))) ++r;  // may carry into the smallest normal: correct
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t h = (((ax >> 23) - 112) << 10) | ((ax >> 13) & 0x3ffu);
    const uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct, up to inf
    return static_cast<uint16_t>(sign | h);
}

float bf16_to_f32(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

uint16_t f32_to_bf16(float f) {
    const uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        // NaN: truncating could clear every payload bit left and turn it into infinity.
        return static_cast<uint16_t>((x >> 16) | 0x0040u);
    }
    const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

void dequantize_row(DType t, const void* src, float* dst, int64_t n) {
    if (n <= 0) return;
    const auto* s = static_cast<const uint8_t*>(src);
    switch (t) {
        case DType::F32: std::memcpy(dst, s, static_cast<std::size_t>(n) * sizeof(float)); return;
        case DType::F16: dequantize_f16(s, dst, n); return;
        case DType::BF16: dequantize_bf16(s, dst, n); return;
        case DType::Q8_0: dequantize_q8_0(s, dst, n); return;
    }
}

void quantize_row_q8_0(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<uint8_t*>(dst);
    const int64_t blocks = n / kQ8BlockSize;
    for (int64_t b = 0; b < blocks; ++b) {
        const float* x = src + b * kQ8BlockSize;
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j) amax = std::max(amax, std::fabs(x[j]));  // NaN ignored
        // Quantize against the scale as it will be stored (f16), so dequantization error stays
        // within half a step of the scale actually used.
        const uint16_t dh = f32_to_f16(amax / 127.0f);
        const float d = f16_to_f32(dh);
        const float id = (d != 0.0f && std::isfinite(d)) ? 1.0f / d : 0.0f;
        uint8_t* block = out + b * kQ8BlockBytes;
        std::memcpy(block, &dh, sizeof dh);
        for (int j = 0; j < kQ8BlockSize; ++j) {
            float v = x[j] * id;
            if (std::isnan(v)) v = 0.0f;
            v = std::clamp(v, -127.0f, 127.0f);
            block[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::lround(v)));
        }
    }
}

void quantize_row(DType t, const float* src, void* dst, int64_t n) {
    if (n <= 0) return;
    auto* d = static_cast<uint8_t*>(dst);
    switch (t) {
        case DType::F32: std::memcpy(d, src, static_cast<std::size_t>(n) * sizeof(float)); return;
        case DType::F16: quantize_f16(src, d, n); return;
        case DType::BF16: quantize_bf16(src, d, n); return;
        case DType::Q8_0: quantize_row_q8_0(src, d, n); return;
    }
}

}  // namespace snapdoc
