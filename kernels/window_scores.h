// SnapKV window scores on the GPU: for every query head h and prefix entry j,
//   out[h * n_prefix + j] = Σ_i exp(scale * q_i·k_j − lse_i)   over window rows i that see j,
// i.e. the softmax of each window query over all the keys it sees, summed over the window. The
// normaliser lse_i comes from the attention kernel (AttentionArgs::lse) over the same cache, so the
// window × L probability matrix is never materialised (it would be W × 100K+ per head).
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

struct WindowScoreArgs {
    const float* q = nullptr;        // window row i, query head h at q + i * q_stride + h * head_dim
    int64_t q_stride = 0;
    const int32_t* q_pos = nullptr;  // [n_window] device
    const float* lse = nullptr;      // [n_window, n_heads] from attention() on the same cache
    int n_window = 0;
    int n_heads = 0;
    float scale = 1.0f;
    KvLayerView cache;               // uncompressed: segment j-th entry is prefix position j
    int n_prefix = 0;
    float* out = nullptr;            // [n_heads, n_prefix]
};

cudaError_t window_scores(const WindowScoreArgs& args, cudaStream_t stream);

}  // namespace snapdoc::kernels
