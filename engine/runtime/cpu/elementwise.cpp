#include "engine/runtime/cpu/elementwise.h"

#include <cmath>

namespace snapdoc::cpu {

void rms_norm_row(const float* x, const float* weight, float* out, int dim, float eps) {
    double ss = 0.0;  // double: the mean of squares of 4K+ values loses digits in f32
    for (int i = 0; i < dim; ++i) ss += static_cast<double>(x[i]) * x[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss / dim + eps));
    for (int i = 0; i < dim; ++i) out[i] = x[i] * inv * weight[i];
}

Rope::Rope(int head_dim, RopeStyle style, RopeFrequencies frequencies)
    : head_dim_(head_dim), style_(style), freq_(std::move(frequencies)) {}

void Rope::prepare(const int32_t* positions, int n) {
    const int half = head_dim_ / 2;
    cos_.resize(static_cast<std::size_t>(n) * half);
    sin_.resize(cos_.size());
    for (int r = 0; r < n; ++r) {
        for (int i = 0; i < half; ++i) {
            // Angles in double: at positions ~100K, f32 angles lose several digits.
            const double angle = static_cast<double>(positions[r]) * freq_.inv_freq[i];
            cos_[static_cast<std::size_t>(r) * half + i] = static_cast<float>(std::cos(angle) * freq_.attention_factor);
            sin_[static_cast<std::size_t>(r) * half + i] = static_cast<float>(std::sin(angle) * freq_.attention_factor);
        }
    }
}

void Rope::apply(float* row, int n_heads, int r) const {
    const int half = head_dim_ / 2;
    const float* c = cos_.data() + static_cast<std::size_t>(r) * half;
    const float* s = sin_.data() + static_cast<std::size_t>(r) * half;
    // AdjacentPairs rotates (2i, 2i+1); RotateHalf rotates (i, i + half).
    const int stride = style_ == RopeStyle::AdjacentPairs ? 2 : 1;
    const int partner = style_ == RopeStyle::AdjacentPairs ? 1 : half;
    for (int h = 0; h < n_heads; ++h) {
        float* v = row + static_cast<int64_t>(h) * head_dim_;
        for (int i = 0; i < half; ++i) {
            float* a = v + i * stride;
            float* b = a + partner;
            const float x0 = *a, x1 = *b;
            *a = x0 * c[i] - x1 * s[i];
            *b = x0 * s[i] + x1 * c[i];
        }
    }
}

void add_bias_rows(float* y, const float* b, int n, int width) {
    for (int r = 0; r < n; ++r) add_inplace(y + static_cast<int64_t>(r) * width, b, width);
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
