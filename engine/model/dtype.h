// Element types of weight tensors and their conversion to f32.
// Q8_0 follows the GGML layout: blocks of 32 values, each an f16 scale followed by 32 int8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace snapdoc {

enum class DType : uint8_t { F32, F16, BF16, Q8_0 };

inline constexpr int kQ8BlockSize = 32;
inline constexpr int kQ8BlockBytes = 2 + kQ8BlockSize;

std::string_view dtype_name(DType t);

// Bytes occupied by one row of `n` elements. For Q8_0, n must be a multiple of 32.
std::size_t dtype_row_bytes(DType t, int64_t n);

// Whether a row of n elements can be stored in this type (Q8_0 needs whole blocks).
bool dtype_row_fits(DType t, int64_t n);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);  // round to nearest even
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);  // round to nearest even

// Converts `n` elements of type `t` starting at `src` to f32 (for Q8_0, n is a multiple of 32).
void dequantize_row(DType t, const void* src, float* dst, int64_t n);

// Quantizes n floats (multiple of 32) to Q8_0 blocks (used by writers and tests).
void quantize_row_q8_0(const float* src, void* dst, int64_t n);

// Encodes n floats as type `t` (the inverse of dequantize_row, rounding to nearest even for F16/BF16);
// dst must hold dtype_row_bytes(t, n) bytes.
void quantize_row(DType t, const float* src, void* dst, int64_t n);

}  // namespace snapdoc
