// Causal attention of a block of query rows over a (possibly ragged, per-head) KV cache, tiled with
// an online softmax so no score matrix larger than one tile per thread ever exists — prompts reach
// 100K+ tokens. A query at position p sees exactly the cache entries whose position is <= p (and,
// with a sliding window W, > p - W).
#pragma once

#include <cstdint>

#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

struct CacheHeadView {
    const float* k = nullptr;      // [length, head_dim]
    const float* v = nullptr;      // [length, head_dim]
    const int32_t* positions = nullptr;  // [length], ascending
    int length = 0;
};

struct AttentionArgs {
    const float* q = nullptr;          // [n, n_heads * head_dim], after RoPE
    const int32_t* q_positions = nullptr;  // [n]
    int n = 0;
    int n_heads = 0;
    int head_dim = 0;
    int group = 1;                     // query heads per cache head
    const CacheHeadView* heads = nullptr;  // [n_heads / group]
    float scale = 1.0f;                // usually 1/sqrt(head_dim)
    int sliding_window = 0;            // > 0: keys at positions <= p - sliding_window are not seen
    float* out = nullptr;              // [n, n_heads * head_dim]
};

void attention(const AttentionArgs& args, ThreadPool& pool);

// The lowest key position a query at `position` sees: 0, or position - window + 1 with a window.
inline int32_t first_visible_position(int32_t position, int window) {
    return window > 0 ? position - window + 1 : 0;
}

// Keys per tile of the online softmax.
inline constexpr int kAttentionTile = 128;
// Query rows per block on the prefill path (from this many rows on, blocks of rows per head are
// used; below it, the query heads of one GQA group at one position form the block).
inline constexpr int kAttentionRowBlock = 32;

}  // namespace snapdoc::cpu
