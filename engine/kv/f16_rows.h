// Row conversions between f32 and IEEE half (f16) for the document's full K/V store, which keeps
// K and V as f16 to halve its memory (and its cache files). The converters pick F16C at run time
// when the CPU has it (the build does not assume it) and fall back to a portable integer codec that
// gives the same bits: round to nearest even, subnormals, infinities; NaN stays NaN.
#pragma once

#include <cstdint>

namespace snapdoc {

void f16_to_f32_row(const uint16_t* src, float* dst, int64_t n);
void f32_to_f16_row(const float* src, uint16_t* dst, int64_t n);

// Index of the first f16 in [0, n) that is NaN or Inf (all exponent bits set), or -1 when every
// value is finite (a K/V cache file holding NaN K/V is refused on restore instead of failing every
// later question).
int64_t first_non_finite_f16(const uint16_t* src, int64_t n);
// The same for f32 values.
int64_t first_non_finite_f32(const float* src, int64_t n);

// "f16c" or "portable": what the two functions above use on this CPU.
const char* f16_row_kernels_name();

// The portable codec, callable directly so tests can compare it with F16C on machines that have both.
namespace f16_portable {
void to_f32(const uint16_t* src, float* dst, int64_t n);
void to_f16(const float* src, uint16_t* dst, int64_t n);
}  // namespace f16_portable

// Largest relative error of one f32 -> f16 rounding for a value in the normal f16 range
// (|x| in [2^-14, 65504]): half an ulp of an 11-bit significand.
inline constexpr double kF16RelativeRounding = 1.0 / 2048.0;

}  // namespace snapdoc
