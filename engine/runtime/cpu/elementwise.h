// Element-wise and per-row operations of the Llama block on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/tensor.h"

namespace snapdoc::cpu {

// out[i] = x[i] / sqrt(mean(x²) + eps) * weight[i] for one row of `dim` values. `weight` is f32.
void rms_norm_row(const float* x, const float* weight, float* out, int dim, float eps);

// Rotary position embedding, applied in place. The frequencies come from rope_frequencies()
// (rope_scaling.h), so every scaling kind is the same two steps here: prepare() builds the cos/sin
// table of a chunk's positions once (angles in double), apply() rotates all heads of q and k of
// one row with that row's table entry.
class Rope {
public:
    Rope(int head_dim, RopeStyle style, RopeFrequencies frequencies);
    void prepare(const int32_t* positions, int n);
    // Rotates `n_heads` heads of a row at index `i` of the last prepare()'s positions.
    void apply(float* row, int n_heads, int i) const;

private:
    int head_dim_;
    RopeStyle style_;
    RopeFrequencies freq_;
    std::vector<float> cos_, sin_;  // [n, head_dim / 2], times the attention factor
};

// y[r * width + i] += b[i] for n rows (projection biases).
void add_bias_rows(float* y, const float* b, int n, int width);

// gate[i] = silu(gate[i]) * up[i]
void swiglu(float* gate, const float* up, int64_t n);

// y[i] += x[i]
void add_inplace(float* y, const float* x, int64_t n);

// An f32 copy of a small (norm) weight vector of any dtype.
std::vector<float> to_f32(const TensorView& t);

}  // namespace snapdoc::cpu
