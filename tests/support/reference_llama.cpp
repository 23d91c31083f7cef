#include "tests/support/reference_llama.h"

#include <cmath>

namespace snapdoc::testing {

namespace {

using Mat = std::vector<double>;

// y[T, out] = x[T, in] · Wᵀ with W [out, in] stored row-major as floats.
Mat linear(const Mat& x, int T, int in, const std::vector<float>& w, int out) {
    Mat y(static_cast<std::size_t>(T) * out, 0.0);
    for (int t = 0; t < T; ++t)
        for (int o = 0; o < out; ++o) {
            double s = 0;
            for (int i = 0; i < in; ++i) s += x[t * in + i] * w[static_cast<std::size_t>(o) * in + i];
            y[static_cast<std::size_t>(t) * out + o] = s;
        }
    return y;
}

Mat rms_norm(const Mat& x, int T, int dim, const std::vector<float>& w, double eps) {
    Mat y(x.size());
    for (int t = 0; t < T; ++t) {
        double ss = 0;
        for (int i = 0; i < dim; ++i) ss += x[t * dim + i] * x[t * dim + i];
        const double inv = 1.0 / std::sqrt(ss / dim + eps);
        for (int i = 0; i < dim; ++i) y[t * dim + i] = x[t * dim + i] * inv * w[i];
    }
    return y;
}

// Rotate-half RoPE: dimension i pairs with i + head_dim/2.
void rope(Mat& x, int T, int n_heads, int hd, double theta, double scale) {
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < n_heads; ++h) {
            double* v = &x[(static_cast<std::size_t>(t) * n_heads + h) * hd];
            for (int i = 0; i < hd / 2; ++i) {
                const double angle = (t / scale) * std::pow(theta, -2.0 * i / hd);
                const double a = v[i], b = v[i + hd / 2];
                v[i] = a * std::cos(angle) - b * std::sin(angle);
                v[i + hd / 2] = a * std::sin(angle) + b * std::cos(angle);
            }
        }
}

}  // namespace

std::vector<double> reference_logits(const TinyWeights& w, const std::vector<int32_t>& ids,
                                     const AttentionFilter& filter) {
    const TinyModelSpec& s = w.spec;
    const int T = static_cast<int>(ids.size()), dim = s.dim, hd = s.dim / s.n_heads;
    const int qd = s.n_heads * hd, kvd = s.n_kv_heads * hd, group = s.n_heads / s.n_kv_heads;
    Mat h(static_cast<std::size_t>(T) * dim);
    for (int t = 0; t < T; ++t)
        for (int i = 0; i < dim; ++i) h[t * dim + i] = w.tok_embeddings[static_cast<std::size_t>(ids[t]) * dim + i];

    for (int layer = 0; layer < static_cast<int>(w.layers.size()); ++layer) {
        const auto& L = w.layers[layer];
        Mat xn = rms_norm(h, T, dim, L.attn_norm, s.norm_eps);
        Mat q = linear(xn, T, dim, L.wq, qd), k = linear(xn, T, dim, L.wk, kvd), v = linear(xn, T, dim, L.wv, kvd);
        rope(q, T, s.n_heads, hd, s.rope_theta, s.rope_linear_scale);
        rope(k, T, s.n_kv_heads, hd, s.rope_theta, s.rope_linear_scale);
        Mat att(static_cast<std::size_t>(T) * qd, 0.0);
        for (int hh = 0; hh < s.n_heads; ++hh) {
            const int kh = hh / group;
            for (int t = 0; t < T; ++t) {
                std::vector<double> scores(t + 1);
                double mx = -1e300;
                for (int j = 0; j <= t; ++j) {
                    if (filter && !filter(layer, hh, t, j)) {
                        scores[j] = -1e300;
                        continue;
                    }
                    double d = 0;
                    for (int i = 0; i < hd; ++i) d += q[t * qd + hh * hd + i] * k[j * kvd + kh * hd + i];
                    scores[j] = d / std::sqrt(static_cast<double>(hd));
                    mx = std::max(mx, scores[j]);
                }
                double z = 0;
                for (double& sc : scores) z += (sc = sc <= -1e300 ? 0.0 : std::exp(sc - mx));
                for (int j = 0; j <= t; ++j)
                    for (int i = 0; i < hd; ++i) att[t * qd + hh * hd + i] += scores[j] / z * v[j * kvd + kh * hd + i];
            }
        }
        Mat o = linear(att, T, qd, L.wo, dim);
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += o[i];
        xn = rms_norm(h, T, dim, L.ffn_norm, s.norm_eps);
        Mat g = linear(xn, T, dim, L.w_gate, s.ffn_dim), u = linear(xn, T, dim, L.w_up, s.ffn_dim);
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1.0 + std::exp(-g[i])) * u[i];
        Mat d = linear(g, T, s.ffn_dim, L.w_down, dim);
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += d[i];
    }
    Mat xn = rms_norm(h, T, dim, w.out_norm, s.norm_eps);
    return linear(xn, T, dim, s.tied ? w.tok_embeddings : w.output, s.vocab_size);
}

}  // namespace snapdoc::testing
