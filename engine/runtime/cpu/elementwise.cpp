#include "engine/runtime/cpu/elementwise.h"

#include <cmath>

namespace snapdoc::cpu {

void rms_norm_row(const float* x, const float* weight, float* out, int dim, float eps) {
    double ss = 0.0;  // double: the mean of squares of 4K+ values loses digits in f32
    for (int i = 0; i < dim; ++i) ss += static_cast<double>(x[i]) * x[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss / dim + eps));
    for (int i = 0; i < dim; ++i) out[i] = x[i] * inv * weight[i];
}

Rope::Rope(int head_dim, float theta, float linear_scale, RopeStyle style)
    : head_dim_(head_dim), linear_scale_(linear_scale), style_(style), inv_freq_(head_dim / 2) {
    for (int i = 0; i < head_dim / 2; ++i)
        inv_freq_[i] = std::pow(static_cast<double>(theta), -2.0 * i / head_dim);
}

void Rope::apply(float* row, int n_heads, int32_t position) const {
    const int half = head_dim_ / 2;
    const double pos = static_cast<double>(position) / linear_scale_;
    // Angles in double: at positions ~100K, f32 angles lose several digits.
    float cosv[256], sinv[256];
    std::vector<float> big_cos, big_sin;
    float* c = cosv;
    float* s = sinv;
    if (half > 256) {
        big_cos.resize(half);
        big_sin.resize(half);
        c = big_cos.data();
        s = big_sin.data();
    }
    for (int i = 0; i < half; ++i) {
        const double angle = pos * inv_freq_[i];
        c[i] = static_cast<float>(std::cos(angle));
        s[i] = static_cast<float>(std::sin(angle));
    }
    for (int h = 0; h < n_heads; ++h) {
        float* v = row + static_cast<int64_t>(h) * head_dim_;
        for (int i = 0; i < half; ++i) {
            // AdjacentPairs rotates (2i, 2i+1); RotateHalf rotates (i, i + half).
            const int a = style_ == RopeStyle::AdjacentPairs ? 2 * i : i;
            const int b = style_ == RopeStyle::AdjacentPairs ? 2 * i + 1 : i + half;
            const float x0 = v[a], x1 = v[b];
            v[a] = x0 * c[i] - x1 * s[i];
            v[b] = x0 * s[i] + x1 * c[i];
        }
    }
}

void swiglu(float* gate, const float* up, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

void add_inplace(float* y, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

std::vector<float> to_f32(const TensorView& t) {
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    dequantize_row(t.dtype, t.data, out.data(), t.numel());
    return out;
}

}  // namespace snapdoc::cpu
