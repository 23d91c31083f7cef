// Internals of attention_decode.h: the decode tiles of each instruction set, chosen at run time by
// attention_decode.cpp from the attention vector ISA in use (attention_vec.h). Every level reads
// only the columns each query vector sees (TileRange), so a masked key adds nothing to a vector,
// not 0·v (a NaN in a cache entry that one vector does not see must not reach it).
#pragma once

#include <cstdint>

#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu::decode_tiles {

using ScoresFn = void (*)(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt,
                          float scale, float* s, int s_stride);
using ValuesFn = void (*)(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
                          const uint16_t* v16, int t0, int kt, float* acc);

struct Kernels {
    ScoresFn scores = nullptr;
    ValuesFn values = nullptr;
};

// Head sizes each level serves: AVX-512 a multiple of 16 up to 128, AVX2 a multiple of 8 up to 128,
// portable any size up to kPortableMaxHeadDim (its per-row buffer lives on the stack).
inline constexpr int kPortableMaxHeadDim = 512;
bool avx512_supports(int hd);
bool avx2_supports(int hd);

// Null members where the build has no such kernels (not x86, or no GCC/Clang).
Kernels avx512_kernels();
Kernels avx2_kernels();
Kernels portable_kernels();

}  // namespace snapdoc::cpu::decode_tiles
