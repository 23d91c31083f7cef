// Element types of weight tensors and their conversion to f32.
// The block-quantized types follow the GGML layouts exactly (engine/model/quant/block_formats.h):
// legacy blocks of 32 values (Q4_0 ... Q8_0, IQ4_NL) and K-quant super-blocks of 256 (Q2_K ... Q6_K,
// IQ4_XS). A row of a block type holds a whole number of blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace snapdoc {

enum class DType : uint8_t { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS };

// Every dtype, in enum order (for tests and tables).
inline constexpr DType kAllDTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0,   DType::Q4_0,
                                       DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q2_K,   DType::Q3_K,
                                       DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS};

inline constexpr int kQ8BlockSize = 32;
inline constexpr int kQ8BlockBytes = 2 + kQ8BlockSize;

std::string_view dtype_name(DType t);

// Values per block (1 for F32/F16/BF16, 32 or 256 for block types) and bytes per block.
int dtype_block_size(DType t);
int dtype_block_bytes(DType t);
bool dtype_is_quantized(DType t);  // a block type (not F32/F16/BF16)

// Bytes occupied by one row of `n` elements (rounded up to whole blocks, so a caller that forgot
// dtype_row_fits never under-sizes a buffer).
std::size_t dtype_row_bytes(DType t, int64_t n);

// Whether a row of n elements can be stored in this type (block types need whole blocks).
bool dtype_row_fits(DType t, int64_t n);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);  // round to nearest even
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);  // round to nearest even

// Converts `n` elements of type `t` starting at `src` to f32 (for block types n is a whole number
// of blocks). Block types decode exactly as ggml's to_float does.
void dequantize_row(DType t, const void* src, float* dst, int64_t n);

// Quantizes n floats (multiple of 32) to Q8_0 blocks (used by writers and tests).
void quantize_row_q8_0(const float* src, void* dst, int64_t n);

// Encodes n floats as type `t` (the inverse of dequantize_row, rounding to nearest even for F16/BF16;
// a simple round-to-nearest quantizer for block types, not ggml's search-based one); dst must hold
// dtype_row_bytes(t, n) bytes.
void quantize_row(DType t, const float* src, void* dst, int64_t n);

}  // namespace snapdoc
