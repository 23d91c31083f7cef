// Attention of query rows over one layer of the ragged device KV cache, tiled with an online
// softmax (flash-attention style, f32 accumulation): no score matrix larger than one tile exists.
// A query at position p sees exactly the segment entries whose position is <= p, which covers
// causal prefill, a chunk after earlier chunks, and compressed (ragged) caches alike. GQA: query
// head h reads cache head h / (n_heads / cache.n_heads), and the query heads of a group share each
// K/V tile loaded into shared memory. Long rows with few query rows (decode) are split over the keys
// ("split-KV") and the partial softmaxes combined, so a single token still fills the GPU.
// A single query row (decode, n == 1) has its own kernel: a block per (key split, cache head) whose
// 8 warps each take batches of keys for all the group's query heads (lanes on head dimensions, K/V
// read coalesced straight from the cache), merge their partial (max, sum, acc) in shared memory,
// and the splits are merged across blocks as above.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// Largest head_dim the attention and window-score kernels support.
inline constexpr int kMaxHeadDim = 128;

struct AttentionArgs {
    const float* q = nullptr;       // row r, query head h at q + r * q_stride + h * head_dim (after RoPE)
    int64_t q_stride = 0;
    const int32_t* q_pos = nullptr;  // [n] device
    int n = 0;                       // query rows
    int n_heads = 0;                 // query heads (a multiple of cache.n_heads)
    float scale = 1.0f;              // usually 1/sqrt(head_dim)
    KvLayerView cache;               // segment lengths AFTER this chunk's append
    int max_len = 0;                 // max segment length over the layer's cache heads
    float* out = nullptr;            // row r, head h at out + r * out_stride + h * head_dim
    int64_t out_stride = 0;
    float* lse = nullptr;            // optional [n, n_heads]: log Σ_j exp(scale * q·k_j) over visible j
    float* scratch = nullptr;        // attention_scratch_floats(...) floats for split-KV partials
    int sm_count = 1;                // multiprocessors of the device (decides the split)
    // Optional, n == 1 only: [cache.n_heads] device segment lengths read when the kernel runs,
    // instead of cache.seg.length (a captured decode graph replays while the cache grows; the
    // split count stays the one planned from max_len, each split's share of keys follows the length).
    const int32_t* seg_length = nullptr;
    // Optional, n == 1 only: the output goes here in `out_cast_dt` (F32/F16/BF16: the input type of
    // the output projection) instead of to `out` as f32, which saves a decode step the conversion launch.
    void* out_cast = nullptr;
    Dt out_cast_dt = Dt::F32;
};

// How the keys are split for these shapes (1 = no split).
struct AttentionPlan {
    int n_split = 1;
    int split_len = 0;  // keys per split, a multiple of the key tile
};
AttentionPlan plan_attention(int n, int n_heads, int cache_heads, int max_len, int sm_count);

// Scratch (f32 elements) the launch with these shapes needs; 0 when it does not split.
int64_t attention_scratch_floats(int n, int n_heads, int cache_heads, int head_dim, int max_len, int sm_count);

cudaError_t attention(const AttentionArgs& args, cudaStream_t stream);

}  // namespace snapdoc::kernels
