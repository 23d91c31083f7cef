// Fused small kernels of the batch-1 decode step (engine/runtime/cuda/cuda_decode_step.h). They read
// the token's position and the cache's segment lengths from device memory, so a CUDA graph that
// captured them stays valid from one token to the next: nothing per token is a kernel parameter.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

struct RopeAppendArgs {
    float* qkv = nullptr;      // one row: n_heads query heads, then n_kv_heads keys, then values
    int n_heads = 0;           // query heads
    int n_kv_heads = 0;
    KvLayerView cache;         // k/v/pos pointers, head_dim, segment offsets (seg.length unused)
    int32_t* length = nullptr; // [cache.n_heads] device: each segment's length, advanced by one here
    const int32_t* position = nullptr;  // device: the row's token position
    // Per rotated pair, radians per position (device, head_dim / 2 doubles, as rope_frequencies()
    // in engine/model/rope_scaling.h derives them for every scaling kind), and the factor on cos
    // and sin (YaRN, LongRoPE; else 1).
    const double* inv_freq = nullptr;
    float attention_factor = 1.0f;
    RopeConvention convention = RopeConvention::AdjacentPairs;
};

// RoPE of the row's query heads (in place) and keys, and the K/V append, in one launch (a block per
// cache head): the rotated key and the value go to entry length[ch] of segment ch as f16 with the
// position, then length[ch] becomes length[ch] + 1. The rotation is the table rope kernel's (angles
// in double, cos/sin rounded to f32 after the attention factor: kernels/rope.h), so the result
// equals rope + kv_append_rows. The caller has checked
// that every segment has room. In query-head mode (cache heads = query heads) several segments
// take the same KV head; keys are rotated in registers, so none is rotated twice.
cudaError_t rope_kv_append(const RopeAppendArgs& args, cudaStream_t stream);

// position[0] += 1: the last launch of a captured decode step moves it to the next token.
cudaError_t advance_position(int32_t* position, cudaStream_t stream);

}  // namespace snapdoc::kernels
