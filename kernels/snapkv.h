// SnapKV's selection on the device: pooling of the window scores, the per-head top-k and the
// gather of the kept entries into a compressed (ragged) KV cache, so a 100K-token layer's scores
// and K/V never travel to the host to be compressed. Semantics follow engine/kv/selection.cpp
// (uniform budget): 'same' 1-D pooling (avg counts the zero padding, max pads with -inf), then in
// kv-head mode the mean of each group's pooled scores — bit for bit the host's values — and the top
// k prefix positions per head plus the observation window. AdaKV's split is a per-head top-k (the
// floor), mask_taken, and one top-k over all heads' remaining scores (engine/runtime/cuda/
// cuda_snapkv_select.cpp). The top-k is a block-level radix select of our own (CUB's device-wide
// primitives would be faster for very long rows but cannot run in the CPU emulation that tests these
// kernels); ties at the k-th value take the lowest positions.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

struct SnapPoolArgs {
    const float* scores = nullptr;  // [n_heads, n_prefix] (window_scores() output)
    int n_heads = 0;
    int n_prefix = 0;
    int group = 1;                  // query heads averaged into one output head (1: query-head mode)
    int kernel = 7;                 // odd
    bool max_pool = true;           // false: average
    float* pooled = nullptr;        // [n_heads / group, n_prefix]
};
cudaError_t snapkv_pool(const SnapPoolArgs& args, cudaStream_t stream);

// For each of `rows` rows of `n` values: the positions of its k largest values (1 <= k <= n),
// ascending, into out [rows, k].
cudaError_t top_k_rows(const float* values, int rows, int n, int k, int32_t* out, cudaStream_t stream);

// out [rows, n] = values, except -inf at row h, position taken[h * k + i] for i < k (0 <= k <= n).
cudaError_t mask_taken(const float* values, int rows, int n, const int32_t* taken, int k, float* out,
                       cudaStream_t stream);

struct SnapGatherArgs {
    KvLayerView src;           // uncompressed layer: entry j of every segment holds prompt position j
    KvLayerView dst;           // compressed cache; dst.seg.length holds the lengths BEFORE the gather
    const int32_t* kept = nullptr;  // [dst.n_heads, k] kept prefix entries per head, ascending
    int k = 0;
    int window_begin = 0, window_end = 0;  // the observation window's entries, kept by every head
};
// Appends, to every dst head, its kept entries and then the window from source head
// h / (dst.n_heads / src.n_heads) (query-head mode repeats a KV head): K, V and positions.
cudaError_t snapkv_gather(const SnapGatherArgs& args, cudaStream_t stream);

}  // namespace snapdoc::kernels
