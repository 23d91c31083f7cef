// SnapKV window scores on the tensor-core path: for every query head h and prefix entry j,
//   out[h * n_prefix + j] = Σ_i exp(scale * q_i·k_j − lse_i)   over window rows i that see j,
// the softmax of each window query over all the keys it sees, summed over the window. Two passes
// of the flash tile (kernels/flash_attention_tile.cuh), neither storing the W × L matrix:
//   1. row statistics: each window query's running max and sum over its visible keys (S = Q·Kᵀ on
//      tensor cores, online softmax, no V), split over the keys so a few window rows over 100K+ keys
//      still fill the GPU, then combined into lse_i;
//   2. per-key accumulation: a block owns 128 keys of one cache head, its 4 warps 32 keys each, and
//      every window query tile is multiplied with them on tensor cores; each lane owns one key
//      column and adds exp(s − lse_i) over the window rows, so each score is one lane's ordered
//      sum (deterministic, no atomics).
// Queries are rounded to f16 after scaling in both passes, so the probabilities of a row sum to 1
// to f32 accuracy. Masks as in flash_prefill.h (positions <= p, optional sliding window).
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

struct FlashWindowScoreArgs {
    const float* q = nullptr;  // window row i, query head h at q + i * q_stride + h * head_dim
    int64_t q_stride = 0;
    const int32_t* q_pos = nullptr;  // [n_window] device
    int n_window = 0;
    int n_heads = 0;
    float scale = 1.0f;
    int sliding_window = 0;
    KvLayerView cache;  // uncompressed: segment entry j is prefix position j
    int max_len = 0;    // max segment length over the layer's cache heads
    int n_prefix = 0;
    float* out = nullptr;      // [n_heads, n_prefix]
    float* scratch = nullptr;  // flash_window_scores_scratch_floats(...) floats
    int sm_count = 1;
};

// Key slices of the first pass for these shapes (1 = no split).
int flash_window_score_splits(int n_window, int n_heads, int cache_heads, int max_len, int sm_count);
// Scratch (f32 elements) the call needs: lse plus the per-slice statistics.
int64_t flash_window_scores_scratch_floats(int n_window, int n_heads, int cache_heads, int max_len,
                                           int sm_count);

cudaError_t flash_window_scores(const FlashWindowScoreArgs& args, cudaStream_t stream);

}  // namespace snapdoc::kernels
