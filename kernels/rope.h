// Rotary position embedding, in place, for both pairing conventions (see RopeConvention): GGUF
// `llama` weights pair (2i, 2i+1), Hugging Face checkpoints pair (i, i + head_dim/2).
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// Rotates the first `n_heads` heads (head_dim values each, contiguous) of `n` rows of `x`, rows
// `row_stride` floats apart, row r at position positions[r] (device). The fused QKV rows put the
// query heads and then the key heads first, so one call rotates both.
cudaError_t rope(float* x, int64_t row_stride, int n, int n_heads, int head_dim, const int32_t* positions,
                 float theta, float linear_scale, RopeConvention convention, cudaStream_t stream);

// The same rotation with the frequencies given per rotated pair, as rope_frequencies()
// (engine/model/rope_scaling.h) derives them for every scaling kind (none, linear, llama3, YaRN,
// LongRoPE): `inv_freq` (device, head_dim / 2 doubles: angles at ~100K positions need double) in
// radians per position, and `attention_factor` multiplying cos and sin (YaRN, LongRoPE; else 1).
cudaError_t rope_with_frequencies(float* x, int64_t row_stride, int n, int n_heads, int head_dim,
                                  const int32_t* positions, const double* inv_freq, float attention_factor,
                                  RopeConvention convention, cudaStream_t stream);

}  // namespace snapdoc::kernels
