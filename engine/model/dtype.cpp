// Element-type conversions. The scalar f16/bf16 codecs work on bit patterns so they are exact for
// every input (subnormals, infinities, NaN payloads) and do not depend on the FPU rounding mode;
// the f16 row converters go through engine/kv/f16_rows.h, which picks F16C at run time where the
// CPU has it (the same bits as the scalar codec).
#include "engine/model/dtype.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "engine/kv/f16_rows.h"
#include "engine/model/quant/block_formats.h"
#include "engine/model/quant/quant_rows.h"

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

bool aligned_u16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % alignof(uint16_t) == 0;
}

void dequantize_f16(const uint8_t* src, float* dst, int64_t n) {
    if (aligned_u16(src)) return f16_to_f32_row(reinterpret_cast<const uint16_t*>(src), dst, n);
    for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(load_u16(src + 2 * i));  // an odd address: bytewise
}

void quantize_f16(const float* src, uint8_t* dst, int64_t n) {
    if (aligned_u16(dst)) return f32_to_f16_row(src, reinterpret_cast<uint16_t*>(dst), n);
    for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_f16(src[i]);
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

void copy_f32(const uint8_t* src, float* dst, int64_t n) { std::memcpy(dst, src, static_cast<std::size_t>(n) * 4); }
void store_f32(const float* src, uint8_t* dst, int64_t n) { std::memcpy(dst, src, static_cast<std::size_t>(n) * 4); }

// One row per dtype, in enum order: name, block geometry and the row codecs.
struct DTypeInfo {
    DType type;
    std::string_view name;
    int block_size;
    int block_bytes;
    void (*decode)(const uint8_t*, float*, int64_t);
    void (*encode)(const float*, uint8_t*, int64_t);
};

using namespace quant;
constexpr DTypeInfo kInfo[] = {
    {DType::F32, "F32", 1, 4, copy_f32, store_f32},
    {DType::F16, "F16", 1, 2, dequantize_f16, quantize_f16},
    {DType::BF16, "BF16", 1, 2, dequantize_bf16, quantize_bf16},
    {DType::Q8_0, "Q8_0", kLegacyBlock, kQ8_0Bytes, dequantize_q8_0, quantize_q8_0},
    {DType::Q4_0, "Q4_0", kLegacyBlock, kQ4_0Bytes, dequantize_q4_0, quantize_q4_0},
    {DType::Q4_1, "Q4_1", kLegacyBlock, kQ4_1Bytes, dequantize_q4_1, quantize_q4_1},
    {DType::Q5_0, "Q5_0", kLegacyBlock, kQ5_0Bytes, dequantize_q5_0, quantize_q5_0},
    {DType::Q5_1, "Q5_1", kLegacyBlock, kQ5_1Bytes, dequantize_q5_1, quantize_q5_1},
    {DType::Q2_K, "Q2_K", kSuperBlock, kQ2_KBytes, dequantize_q2_k, quantize_q2_k},
    {DType::Q3_K, "Q3_K", kSuperBlock, kQ3_KBytes, dequantize_q3_k, quantize_q3_k},
    {DType::Q4_K, "Q4_K", kSuperBlock, kQ4_KBytes, dequantize_q4_k, quantize_q4_k},
    {DType::Q5_K, "Q5_K", kSuperBlock, kQ5_KBytes, dequantize_q5_k, quantize_q5_k},
    {DType::Q6_K, "Q6_K", kSuperBlock, kQ6_KBytes, dequantize_q6_k, quantize_q6_k},
    {DType::IQ4_NL, "IQ4_NL", kLegacyBlock, kIq4NlBytes, dequantize_iq4_nl, quantize_iq4_nl},
    {DType::IQ4_XS, "IQ4_XS", kSuperBlock, kIq4XsBytes, dequantize_iq4_xs, quantize_iq4_xs},
};
static_assert(std::size(kInfo) == std::size(kAllDTypes), "one DTypeInfo per DType");

const DTypeInfo& info(DType t) {
    const auto i = static_cast<std::size_t>(t);
    assert(i < std::size(kInfo) && kInfo[i].type == t);
    return kInfo[i];
}

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
int dtype_block_size(DType t) { return info(t).block_size; }
int dtype_block_bytes(DType t) { return info(t).block_bytes; }
bool dtype_is_quantized(DType t) { return info(t).block_size > 1; }

std::size_t dtype_row_bytes(DType t, int64_t n) {
    if (n <= 0) return 0;
    const auto un = static_cast<std::size_t>(n);
    const auto bs = static_cast<std::size_t>(info(t).block_size);
    return (un + bs - 1) / bs * static_cast<std::size_t>(info(t).block_bytes);
}

bool dtype_row_fits(DType t, int64_t n) { return n >= 0 && n % info(t).block_size == 0; }

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
    if (n > 0) info(t).decode(static_cast<const uint8_t*>(src), dst, n);
}

void quantize_row_q8_0(const float* src, void* dst, int64_t n) { quant::quantize_q8_0(src, static_cast<uint8_t*>(dst), n); }

void quantize_row(DType t, const float* src, void* dst, int64_t n) {
    if (n > 0) info(t).encode(src, static_cast<uint8_t*>(dst), n);
}

}  // namespace snapdoc
