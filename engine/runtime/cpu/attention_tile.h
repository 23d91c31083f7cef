// Pieces shared by the CPU attention and the SnapKV window scores, which run the same tiles: the
// queries of one (cache head, block of rows) packed into a [rows·group, head_dim] matrix, the score
// tile S = scale · Q·Kᵀ of one key tile, and which columns of a tile one query sees.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/gemm_f32.h"

namespace snapdoc::cpu {

// Packs rows [r0, r0 + rows) × query heads [c·group, (c+1)·group) of q (row stride q_stride) into
// dst [rows·group, hd]: packed row m is prompt row r0 + m / group, query head c·group + m % group.
// The group's heads are contiguous in a row, so each row is one copy.
inline void pack_group_queries(const float* q, int64_t q_stride, int r0, int rows, int c, int group, int hd,
                               float* dst) {
    const int64_t width = static_cast<int64_t>(group) * hd;
    for (int r = 0; r < rows; ++r)
        std::memcpy(dst + r * width, q + (r0 + r) * q_stride + c * width, sizeof(float) * width);
}

// A key tile's rows as f32 (rows_as_f32, attention.h), an f16 cache's converted into buf. A tile is
// at most kAttentionTile rows (64 KiB of f32 at head_dim 64), so the converted rows stay in L2 while
// the tile's products read them.
inline const float* tile_rows(const float* f32, const uint16_t* f16, int t0, int kt, int hd,
                              std::vector<float>& buf) {
    if (!f32) buf.resize(static_cast<std::size_t>(kt) * hd);
    return rows_as_f32(f32, f16, t0, kt, hd, buf.data());
}

// Where the decode tiles (attention_decode.h) do not run: up to this many query vectors (decode of
// a model without GQA: one row, one head) a tile is done with direct dot products / axpys that read
// each K and V row once. From two on, the GEMM path (which packs the tile first) is faster: each
// dot's horizontal sum is a serial chain, the GEMM's register tiles are not. Decode attention of
// Llama-3.2-1B's shape (group 4) at 4K keys ran 105 GFLOP/s this way against ~55 with direct dots
// up to 4 vectors, and the demo's (group 2) 60 against 36 (`snapdoc-bench attention --rows 1`,
// 2-core Zen 5); one vector stays direct (40 vs 20).
inline constexpr int kAttentionDirectRows = 1;

// s [m, kt] (row stride kAttentionTile) = scale · qp [m, hd] · k[0..kt)ᵀ. The GEMMs run single-
// threaded here (the backend's pool owns the parallelism): our AVX-512 kernel where the CPU has it
// (gemm_f32.h), OpenBLAS elsewhere.
inline void score_tile(const float* qp, int m, int hd, const float* k, int kt, float scale, float* s) {
    if (m > kAttentionDirectRows) {
        if (gemm_f32_use_avx512())
            gemm_f32(GemmB::Transposed, m, kt, hd, scale, qp, hd, k, hd, false, s, kAttentionTile,
                     GemmIsa::Avx512);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, kt, hd, scale, qp, hd, k, hd, 0.0f, s,
                        kAttentionTile);
        return;
    }
    for (int j = 0; j < kt; ++j)
        for (int i = 0; i < m; ++i)
            s[i * kAttentionTile + j] =
                scale * dot_f32(qp + static_cast<int64_t>(i) * hd, k + static_cast<int64_t>(j) * hd, hd);
}

// acc [m, hd] += s [m, kt] (row stride kAttentionTile) · v[0..kt).
inline void accumulate_values(const float* s, int m, int hd, const float* v, int kt, float* acc) {
    if (m > kAttentionDirectRows) {
        if (gemm_f32_use_avx512())
            gemm_f32(GemmB::AsIs, m, hd, kt, 1.0f, s, kAttentionTile, v, hd, true, acc, hd, GemmIsa::Avx512);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, hd, kt, 1.0f, s, kAttentionTile, v, hd,
                        1.0f, acc, hd);
        return;
    }
    for (int j = 0; j < kt; ++j)
        for (int i = 0; i < m; ++i)
            if (const float p = s[i * kAttentionTile + j]; p != 0.0f)
                axpy_f32(p, v + static_cast<int64_t>(j) * hd, acc + static_cast<int64_t>(i) * hd, hd);
}

// The columns [lo, hi) of a tile with key positions kpos[0..kt) (ascending) that a query at
// position p sees; lo >= hi when none.
inline TileRange visible_in_tile(const int32_t* kpos, int kt, int32_t p, int window) {
    TileRange r{0, kt};
    if (kpos[kt - 1] > p) r.hi = static_cast<int>(std::upper_bound(kpos, kpos + kt, p) - kpos);
    const int32_t first = first_visible_position(p, window);
    if (r.hi > 0 && kpos[0] < first)
        r.lo = static_cast<int>(std::lower_bound(kpos, kpos + r.hi, first) - kpos);
    return r;
}

// Cache entries [first, end) that some query at positions within [min_pos, max_pos] sees.
struct KeySpan {
    int first = 0, end = 0;
};
inline KeySpan visible_span(const CacheHeadView& h, int32_t min_pos, int32_t max_pos, int window) {
    const int end =
        static_cast<int>(std::upper_bound(h.positions, h.positions + h.length, max_pos) - h.positions);
    const int32_t lo = first_visible_position(min_pos, window);
    const int first = static_cast<int>(std::lower_bound(h.positions, h.positions + end, lo) - h.positions);
    return {first, end};
}

}  // namespace snapdoc::cpu
