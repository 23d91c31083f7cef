// Writing a chunk's keys and values into the ragged device KV cache.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// Appends n rows to every cache head segment of one layer. Row r's keys (after RoPE) are at
// qkv + r * row_stride + k_offset and its values at + v_offset, n_kv_heads heads of head_dim each;
// cache head ch takes KV head ch / (cache.n_heads / n_kv_heads) (query-head mode repeats a KV head
// for each query head of its group). Entry r of segment ch goes to index cache.seg.length[ch] + r,
// so `cache.seg.length` must hold the lengths BEFORE the append; positions[r] (device) is stored with it.
cudaError_t kv_append_rows(const KvLayerView& cache, const float* qkv, int64_t row_stride, int64_t k_offset,
                           int64_t v_offset, int n_kv_heads, const int32_t* positions, int n, cudaStream_t stream);

}  // namespace snapdoc::kernels
