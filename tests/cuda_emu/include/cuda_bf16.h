// CUDA emulation (tests/cuda_emu): __nv_bfloat16 and its conversions (round to nearest even, NaN kept).
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda_fp16.h"

struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        if ((b & 0x7fffffffu) > 0x7f800000u) __x = static_cast<unsigned short>((b >> 16) | 0x40u);  // quiet NaN
        else __x = static_cast<unsigned short>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    }
    operator float() const {
        const uint32_t b = static_cast<uint32_t>(__x) << 16;
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) {
    __nv_bfloat16 h;
    h.__x = b;
    return h;
}
inline float2 __bfloat1622float2(__nv_bfloat162 v) { return {__bfloat162float(v.x), __bfloat162float(v.y)}; }
