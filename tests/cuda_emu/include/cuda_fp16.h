// CUDA emulation (tests/cuda_emu): __half and the conversions snapdoc's kernels and host code use.
// f32 -> f16 rounds to nearest even (GCC's _Float16 conversion, the same rounding as __float2half_rn).
#pragma once

#include <cstring>

#include "vector_types.h"

struct __half {
    unsigned short __x;
    __half() = default;
    __half(float f) {  // implicit, as in CUDA's own header
        const _Float16 h = static_cast<_Float16>(f);
        std::memcpy(&__x, &h, 2);
    }
    operator float() const {
        _Float16 h;
        std::memcpy(&h, &__x, 2);
        return static_cast<float>(h);
    }
};
struct alignas(4) __half2 {
    __half x, y;
};
typedef __half half;
typedef __half2 half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return static_cast<float>(h); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short b) {
    __half h;
    h.__x = b;
    return h;
}
inline float2 __half22float2(__half2 v) { return {__half2float(v.x), __half2float(v.y)}; }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float22half2_rn(float2 v) { return {__half(v.x), __half(v.y)}; }
inline __half2 __float2half2_rn(float a) { return {__half(a), __half(a)}; }
inline float __low2float(__half2 v) { return __half2float(v.x); }
inline float __high2float(__half2 v) { return __half2float(v.y); }
