// Internals of attention_decode.h: the decode tiles of each instruction set, chosen at run time by
// attention_decode.cpp from the attention vector ISA in use (attention_vec.h). Every level reads
// only the columns each query vector sees (TileRange), so a masked key adds nothing to a vector,
// not 0·v (a NaN in a cache entry that one vector does not see must not reach it).
#pragma once

#include <algorithm>
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

// The keys [lo_all, hi_all) of a tile that every one of m vectors sees, and [lo_any, hi_any) that
// some vector sees: the vector tiles run the first span without a per-vector test. When no key is
// seen by all, the first span is empty at hi_any (every key is tested).
struct SeenSpans {
    int lo_all, hi_all, lo_any, hi_any;
};
inline SeenSpans seen_spans(const TileRange* seen, int m, int kt) {
    SeenSpans r{0, kt, kt, 0};
    for (int i = 0; i < m; ++i) {
        r.lo_all = std::max(r.lo_all, seen[i].lo), r.hi_all = std::min(r.hi_all, seen[i].hi);
        if (seen[i].lo < seen[i].hi) r.lo_any = std::min(r.lo_any, seen[i].lo), r.hi_any = std::max(r.hi_any, seen[i].hi);
    }
    if (r.lo_all >= r.hi_all) r.lo_all = r.hi_all = r.hi_any;
    return r;
}

// A vector tile's values kernel for M ≤ 4 vectors over CC chunks of the head from chunk c0, and the
// loop that covers m vectors and `chunks` chunks with them, 4 vectors × up to max_cc chunks at a
// time (each batch re-reads the tile's values, from L1 / L2 after the first). blocks[M][CC].
using ValuesBlockFn = void (*)(const float* s, int s_stride, const TileRange* seen, const float* v32,
                               const uint16_t* v16, int hd, int c0, int t0, int kt, float* acc);
inline void run_values_blocks(const ValuesBlockFn* const* blocks, int max_cc, int chunks, const float* s,
                              int s_stride, const TileRange* seen, int m, int hd, const float* v32,
                              const uint16_t* v16, int t0, int kt, float* acc) {
    for (int i0 = 0; i0 < m; i0 += 4)
        for (int c0 = 0; c0 < chunks; c0 += max_cc)
            blocks[std::min(4, m - i0)][std::min(max_cc, chunks - c0)](s + static_cast<int64_t>(i0) * s_stride,
                                                                      s_stride, seen + i0, v32, v16, hd, c0, t0,
                                                                      kt, acc + static_cast<int64_t>(i0) * hd);
}

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
