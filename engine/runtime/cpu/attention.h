// Causal attention of a block of query rows over a (possibly ragged, per-head) KV cache, tiled with
// an online softmax so no score matrix larger than one tile per thread ever exists — prompts reach
// 100K+ tokens. A query at position p sees exactly the cache entries whose position is <= p (and,
// with a sliding window W, > p - W).
//
// Work is split into (cache head, block of query rows): the query heads of one GQA group and a
// run of consecutive rows form one block, so every K/V tile read from the cache serves the whole
// group. Blocks are handed out costliest first (causal blocks late in the prompt see more keys),
// so the threads finish together.
#pragma once

#include <cstdint>

#include "engine/kv/f16_rows.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

// One cache head's entries, in f32 (k, v) or in f16 (k16, v16; k and v null): the kernels convert
// an f16 cache one key tile at a time, so only half the bytes come from memory.
struct CacheHeadView {
    const float* k = nullptr;            // [length, head_dim]
    const float* v = nullptr;            // [length, head_dim]
    const int32_t* positions = nullptr;  // [length], ascending
    int length = 0;
    const uint16_t* k16 = nullptr;  // [length, head_dim] IEEE half, when k is null
    const uint16_t* v16 = nullptr;
};

// Entries [first, first + n) of a cache head's K (or V) as f32 rows: the f32 cache's own memory, or
// an f16 cache's entries converted into buf (n·head_dim floats).
inline const float* rows_as_f32(const float* f32, const uint16_t* f16, int first, int n, int hd, float* buf) {
    const int64_t off = static_cast<int64_t>(first) * hd;
    if (f32) return f32 + off;
    f16_to_f32_row(f16 + off, buf, static_cast<int64_t>(n) * hd);
    return buf;
}

// The columns [lo, hi) of one key tile that one query sees (lo >= hi: none).
struct TileRange {
    int lo = 0, hi = 0;
};

struct AttentionArgs {
    const float* q = nullptr;              // [n, n_heads * head_dim], after RoPE
    const int32_t* q_positions = nullptr;  // [n], any order
    int n = 0;
    int n_heads = 0;
    int head_dim = 0;
    int group = 1;                         // query heads per cache head
    const CacheHeadView* heads = nullptr;  // [n_heads / group]
    float scale = 1.0f;                    // usually 1/sqrt(head_dim)
    int sliding_window = 0;                // > 0: keys at positions <= p - sliding_window are not seen
    float* out = nullptr;                  // [n, n_heads * head_dim]; nullptr: only lse (no P·V work)
    float* lse = nullptr;                  // optional [n, n_heads]: log Σ_j exp(scale·q·k_j) over the
                                           // visible j (-inf when none is visible)
};

void attention(const AttentionArgs& args, ThreadPool& pool);

// The lowest key position a query at `position` sees: 0, or position - window + 1 with a window.
inline int32_t first_visible_position(int32_t position, int window) {
    return window > 0 ? position - window + 1 : 0;
}

// Keys per tile of the online softmax.
inline constexpr int kAttentionTile = 256;
// Query vectors per block: rows × group ≈ this many (at least one row), so the score tile is
// kAttentionBlockQueries × kAttentionTile and the GEMMs are large enough to run near peak.
inline constexpr int kAttentionBlockQueries = 256;

// Rows per block for a GQA group of this size.
inline int attention_block_rows(int group) {
    return group >= kAttentionBlockQueries ? 1 : kAttentionBlockQueries / group;
}

}  // namespace snapdoc::cpu
