// SnapKV's observation-window scores on the CPU, on the attention's tiles: for every query head h
// and prefix entry j,
//   out[h · n_prefix + j] = Σ_i exp(scale · q_i·k_j − lse_i)   over the window rows i that see j,
// i.e. each window query's softmax over all the keys it sees, summed over the window. Two passes:
// attention() yields lse_i (its log-sum-exp, without the P·V work), then every key tile's
// probabilities are formed once and added up; the window × L matrix is never materialised.
#pragma once

#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu {

struct WindowScoreArgs {
    const float* q = nullptr;              // [n_window, n_heads * head_dim], after RoPE
    const int32_t* q_positions = nullptr;  // [n_window]
    int n_window = 0;
    int n_heads = 0;
    int head_dim = 0;
    int group = 1;                         // query heads per cache head
    const CacheHeadView* heads = nullptr;  // [n_heads / group], uncompressed: entry j is position j
    float scale = 1.0f;
    int sliding_window = 0;
    int n_prefix = 0;      // entries scored: [0, n_prefix)
    float* out = nullptr;  // [n_heads, n_prefix]
};

void window_scores(const WindowScoreArgs& args, ThreadPool& pool);

}  // namespace snapdoc::cpu
