// Weight blocks of 16 rows interleaved for the AVX-512 integer GEMM (quant_gemm_avx512vnni.cpp): one
// 512-bit register holds 4 consecutive values of each of 16 weight rows, so one dpbusd / dpwssd
// against 4 broadcast activation bytes updates 16 outputs at once. The outputs stay in lanes (one
// per weight row) from the first block to the last: no horizontal sums, and the per-block float
// scales of 16 rows are applied by one vector multiply instead of 16 scalar ones. This is what
// makes a 32-value block (Q8_0: one scale per 32 products) cheap, where the 2×4 register tiles
// of quant_gemm_simd.inc spent more instructions on the scale than on the products.
//
// The interleaved blocks are made per call, a chunk of rows at a time — straight from the file's
// bytes for Q4_K, Q5_K, Q6_K and Q8_0 (direct_interleave_*), else from the unpacked forms of
// quant_gemm_kernels.h (interleave_k16 / interleave_32x16) — so the weights in memory stay as the
// file stores them: no repacked copy of the model.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/quant_gemm_kernels.h"

namespace snapdoc::cpu::quant_gemm_detail {

inline constexpr int kInterleavedRows = 16;

// One 256-value super-block of 16 rows. w[row][v] = scale[g][row]·q − dmin[row]·min, as in
// UnpackedK with d folded into the float scale (exact: an f16 times a small integer); rows past the
// end of the matrix are zero. The kernel sums each scale group's products in integers (dpbusd:
// unsigned levels × signed activation bytes) and applies the group's scale once, in float, so a
// 32-value group (Q4_K, Q5_K) costs one instruction per 4 values and 16 rows, not the two that
// scaling every pair of products in integers took.
struct alignas(64) InterleavedK16 {
    uint8_t q[64][kInterleavedRows][4];  // step s (values 4s..4s+3) × row × value
    float scale[16][kInterleavedRows];   // group g (values 16g..16g+15) × row: d·scale
    int16_t min[8][kInterleavedRows][2];  // group pair p × row × (min of group 2p, of 2p + 1)
    float dmin[kInterleavedRows];
};

// One 32-value block of 16 rows: w[row][v] = d[row]·q + m[row]. The kernel multiplies unsigned
// activation bytes (x + 128) by the signed levels, so bias[row] = −128·Σq restores x·q.
struct alignas(64) Interleaved32x16 {
    int8_t q[8][kInterleavedRows][4];  // step s (values 4s..4s+3) × row × value
    int32_t bias[kInterleavedRows];
    float d[kInterleavedRows], m[kInterleavedRows];
};

// Interleaves rows [0, count) (count ≤ 16; nb blocks each, row r at rows + r·nb) block by block
// into out[0, nb).
void interleave_k16(const UnpackedK* rows, int count, int64_t nb, InterleavedK16* out);
void interleave_32x16(const Unpacked32* rows, int count, int64_t nb, Interleaved32x16* out);

// The common block types straight from the file's bytes into interleaved groups, without the
// unpacked form in between (a quarter of the prefill's GEMM time went to unpacking): rows [0, count)
// of row_bytes each, nb blocks per row. Null for types without one (they take unpack + interleave).
using InterleaveKRowsFn = void (*)(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb,
                                   InterleavedK16* out);
using Interleave32RowsFn = void (*)(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb,
                                    Interleaved32x16* out);
InterleaveKRowsFn direct_interleave_k(DType t);    // Q4_K, Q5_K, Q6_K
Interleave32RowsFn direct_interleave_32(DType t);  // Q8_0

// Copies n activation rows of ActBlock32 blocks (act_stride bytes each, nb blocks) into dst with
// their levels as unsigned bytes (q + 128).
void to_unsigned_levels(const uint8_t* act, std::size_t act_stride, int n, int64_t nb, uint8_t* dst);

// y[i·ldy + r] = weight row r · activation row i for r < rows and i < n: the rows come in
// ⌈rows / 16⌉ interleaved groups of nb blocks each (group g at w + g·nb), the activation rows are
// act_stride bytes apart. For the 32-value form the activation levels are stored as unsigned bytes
// x + 128 (ActBlock32 with every q byte XOR 0x80; to_unsigned_levels).
// group32: every pair of 16-value groups shares one scale (Q4_K, Q5_K), so the kernel applies the
// scales per 32 values.
using GemmK16Fn = void (*)(const InterleavedK16* w, int rows, int64_t nb, bool group32, const uint8_t* act,
                           std::size_t act_stride, int n, float* y, int64_t ldy);
using Gemm32x16Fn = void (*)(const Interleaved32x16* w, int rows, int64_t nb, bool has_min,
                             const uint8_t* act, std::size_t act_stride, int n, float* y, int64_t ldy);

struct InterleavedKernels {
    GemmK16Fn k = nullptr;
    Gemm32x16Fn b32 = nullptr;
};

InterleavedKernels avx512_interleaved_kernels();   // nulls when the build has no AVX-512 kernels
InterleavedKernels avxvnni_interleaved_kernels();  // the same blocks in 8-row halves (AVX-VNNI, 256-bit)

}  // namespace snapdoc::cpu::quant_gemm_detail
