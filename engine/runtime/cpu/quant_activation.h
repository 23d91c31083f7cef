// Activation rows quantized to 8 bits for the batch-1 dot kernels of block-quantized weights
// (quant_dot.h). Decode is bound by weight bandwidth; dotting packed integer weights with 8-bit
// activations (llama.cpp's Q8_0 / Q8_K scheme) keeps the arithmetic well below the memory time,
// while an f32 activation would need every weight widened to float first.
// The activation row is quantized once per matmul and reused for every weight row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/dtype.h"

namespace snapdoc::cpu {

// For 32-value weight blocks (Q4_0 .. Q8_0, IQ4_NL): x ≈ d * q, with d * Σq kept so the weight
// offsets (−8, −16, the Q4_1/Q5_1 min) cost one multiply per block.
struct ActBlock32 {
    float d;
    float d_sum;  // d * Σ q
    int8_t q[32];
};

// For 256-value super-blocks (K-quants, IQ4_XS): x ≈ d * q, with the sums of each 16 q (the
// sub-block mins and level offsets need them).
struct ActBlock256 {
    float d;
    int16_t sums16[16];
    int8_t q[256];
};

// For the 512-bit Q4_K decode kernel: a Blocks256 block with its levels in the order that one
// 64-byte load of Q4_K's packed nibbles yields them. Those 64 bytes (values 128h..128h+127) hold
// values 128h+0..31 and 128h+64..95 in their low nibbles, 128h+32..63 and 128h+96..127 in their
// high ones, so each 128 levels are stored as [0..31, 64..95, 32..63, 96..127]: the kernel then
// splits a load into two 64-level registers with one mask and one shift, where the file order
// costs a broadcast, a variable shift and a mask per 64 levels. The sums are per 32 values
// (a Q4_K sub-block), computed once here instead of once per weight row. 64-byte aligned.
struct alignas(64) ActBlock256Nibbles {
    int8_t q[256];
    int16_t sums32[8];
    float d;
};
// The value (0..255 within the block) that 32-level run `run` (0..7) of an ActBlock256Nibbles
// starts at: runs 4h..4h+3 hold values 128h + [0, 64, 32, 96] onwards.
inline constexpr int nibble_order_run_start(int run) {
    const int half = run / 4, part = run % 4;
    return 128 * half + 32 * ((part >> 1) | ((part & 1) << 1));
}

enum class ActFormat { Blocks32, Blocks256, Blocks256Nibbles };
inline constexpr int kActFormatCount = 3;  // for per-format tables indexed by the enum's value

// The activation format that weight type t (a block type) dots with in quant_dot (decode_dot in
// quant_dot.h may pick a kernel reading another one).
ActFormat act_format(DType t);
// Bytes of one quantized activation row of n values (n a multiple of the block size).
std::size_t act_row_bytes(ActFormat f, int64_t n);
// Quantizes n floats (round to nearest, scale = absmax / 127 per block). A block holding NaN or Inf
// gets d = NaN (and q = 0), so the NaN reaches every dot with it and then the logits check.
void quantize_activation(ActFormat f, const float* x, void* dst, int64_t n);
// The same without SIMD (what builds without AVX2 use; tests check both give the same bytes).
void quantize_activation_portable(ActFormat f, const float* x, void* dst, int64_t n);

}  // namespace snapdoc::cpu
