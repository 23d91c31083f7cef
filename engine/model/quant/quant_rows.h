// Row converters for the GGML block-quantized types (layouts in block_formats.h). n is always a
// whole number of blocks (callers check dtype_row_fits first).
//
// dequantize_*: exactly ggml's to_float (same float operations in the same order, no fused
// multiply-add), so the results match ggml bit for bit.
// quantize_*: simple round-to-nearest quantizers used by the GGUF writer to make test models. They
// produce valid blocks with small error but are not ggml's (search-based) quantizers.
#pragma once

#include <cstdint>

namespace snapdoc::quant {

void dequantize_q4_0(const uint8_t* src, float* dst, int64_t n);
void dequantize_q4_1(const uint8_t* src, float* dst, int64_t n);
void dequantize_q5_0(const uint8_t* src, float* dst, int64_t n);
void dequantize_q5_1(const uint8_t* src, float* dst, int64_t n);
void dequantize_q8_0(const uint8_t* src, float* dst, int64_t n);
void dequantize_q2_k(const uint8_t* src, float* dst, int64_t n);
void dequantize_q3_k(const uint8_t* src, float* dst, int64_t n);
void dequantize_q4_k(const uint8_t* src, float* dst, int64_t n);
void dequantize_q5_k(const uint8_t* src, float* dst, int64_t n);
void dequantize_q6_k(const uint8_t* src, float* dst, int64_t n);
void dequantize_iq4_nl(const uint8_t* src, float* dst, int64_t n);
void dequantize_iq4_xs(const uint8_t* src, float* dst, int64_t n);

void quantize_q4_0(const float* src, uint8_t* dst, int64_t n);
void quantize_q4_1(const float* src, uint8_t* dst, int64_t n);
void quantize_q5_0(const float* src, uint8_t* dst, int64_t n);
void quantize_q5_1(const float* src, uint8_t* dst, int64_t n);
void quantize_q8_0(const float* src, uint8_t* dst, int64_t n);
void quantize_q2_k(const float* src, uint8_t* dst, int64_t n);
void quantize_q3_k(const float* src, uint8_t* dst, int64_t n);
void quantize_q4_k(const float* src, uint8_t* dst, int64_t n);
void quantize_q5_k(const float* src, uint8_t* dst, int64_t n);
void quantize_q6_k(const float* src, uint8_t* dst, int64_t n);
void quantize_iq4_nl(const float* src, uint8_t* dst, int64_t n);
void quantize_iq4_xs(const float* src, uint8_t* dst, int64_t n);

}  // namespace snapdoc::quant
