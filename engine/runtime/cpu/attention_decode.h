// Decode-sized attention tiles without packing: up to kAttentionDecodeVectors query vectors (one
// decode row of a GQA group) against one key tile. The scores of 16 keys come from 16 register
// accumulators folded into one vector (no horizontal sum per key, no serial chain), the keys of an
// f16 cache converted 16 at a time into an L1-resident buffer that every query vector then reads.
// The values of up to 4 query vectors sum in registers over the whole tile: each value row is
// loaded (and converted) once and multiplied into all of them (no tile-sized scratch). AVX-512
// tiles for head sizes that are a multiple of 16 up to 128, AVX2 tiles (8-wide) for multiples of 8
// up to 128, portable ones elsewhere (attention_decode_kernels.h); every level reads only the
// columns a vector sees, so a masked key holding NaN cannot reach it.
#pragma once

#include <cstdint>

#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu {

inline constexpr int kAttentionDecodeVectors = 8;

// True when the kernels below serve this head size (any up to 512; the vector ISA in use, which
// tests may force, picks the tiles' instruction set).
bool decode_tile_available(int hd);

// s[i * s_stride + j] = scale · q_i · k_{t0 + j} for i < m, j < kt (q: [m, hd]; k: a cache head's
// [length, hd] rows, k32 in f32 or, when k32 is null, k16 in f16, as CacheHeadView holds them).
void decode_scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt,
                   float scale, float* s, int s_stride);

// acc[i, :] += Σ_j s[i * s_stride + j] · v_{t0 + j} for i < m and the j in [seen[i].lo, seen[i].hi)
// (v as k above); the other columns of s are not read.
void decode_values(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
                   const uint16_t* v16, int t0, int kt, float* acc);

}  // namespace snapdoc::cpu
