// Element-wise and per-row operations of the Llama block on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/tensor.h"

namespace snapdoc::cpu {

// out[i] = x[i] / sqrt(mean(x²) + eps) * weight[i] for one row of `dim` values. `weight` is f32.
void rms_norm_row(const float* x, const float* weight, float* out, int dim, float eps);

// Rotary position embedding applied in place to `n_heads` heads of one row.
class Rope {
public:
    Rope(int head_dim, float theta, float linear_scale, RopeStyle style);
    void apply(float* row, int n_heads, int32_t position) const;

private:
    int head_dim_;
    float linear_scale_;
    RopeStyle style_;
    std::vector<double> inv_freq_;  // theta^(-2i/head_dim)
};

// gate[i] = silu(gate[i]) * up[i]
void swiglu(float* gate, const float* up, int64_t n);

// y[i] += x[i]
void add_inplace(float* y, const float* x, int64_t n);

// An f32 copy of a small (norm) weight vector of any dtype.
std::vector<float> to_f32(const TensorView& t);

}  // namespace snapdoc::cpu
