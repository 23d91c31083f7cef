// Prefill attention on tensor cores (flash-attention style, WMMA 16x16x16 in f16 with f32
// accumulation and an online softmax; kernels/flash_attention_tile.cuh has the tile): the query
// rows of a chunk over one layer of the ragged device KV cache (f16 K/V). Same contract as
// kernels/attention.h — a query at position p sees the segment entries at positions <= p — plus
// Mistral's sliding window (entries at positions <= p − sliding_window are not seen). GQA: query
// head h reads cache head h / (n_heads / cache.n_heads) and the group shares each loaded K/V tile.
// No split over the keys: meant for many rows (prefill); decode rows (n = 1) keep attention().
// Queries are rounded to f16 after scaling (the K/V already are), so results agree with the f32
// CUDA-core kernel to f16 rounding, not to f32.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

struct FlashAttentionArgs {
    const float* q = nullptr;  // row r, query head h at q + r * q_stride + h * head_dim (after RoPE)
    int64_t q_stride = 0;
    const int32_t* q_pos = nullptr;  // [n] device
    int n = 0;                       // query rows
    int n_heads = 0;                 // query heads (a multiple of cache.n_heads)
    float scale = 1.0f;              // usually 1/sqrt(head_dim)
    int sliding_window = 0;          // > 0: Mistral-style window; 0: none
    KvLayerView cache;               // segment lengths AFTER this chunk's append
    float* out = nullptr;            // row r, head h at out + r * out_stride + h * head_dim
    int64_t out_stride = 0;
    float* lse = nullptr;  // optional [n, n_heads]: log Σ_j exp(scale * q·k_j) over visible j
};

cudaError_t flash_attention(const FlashAttentionArgs& args, cudaStream_t stream);

}  // namespace snapdoc::kernels
