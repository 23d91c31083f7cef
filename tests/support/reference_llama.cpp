#include "tests/support/reference_llama.h"

#include <algorithm>
#include <cmath>
#include <numbers>

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

// Rotate-half RoPE: dimension i pairs with i + head_dim/2; cos and sin scaled by the attention factor.
void rope(Mat& x, int T, int n_heads, int hd, const ReferenceRope& r) {
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < n_heads; ++h) {
            double* v = &x[(static_cast<std::size_t>(t) * n_heads + h) * hd];
            for (int i = 0; i < hd / 2; ++i) {
                const double angle = t * r.inv_freq[i];
                const double c = std::cos(angle) * r.attention_factor, s = std::sin(angle) * r.attention_factor;
                const double a = v[i], b = v[i + hd / 2];
                v[i] = a * c - b * s;
                v[i + hd / 2] = a * s + b * c;
            }
        }
}

void add_bias(Mat& y, int T, const std::vector<float>& b) {
    if (b.empty()) return;
    for (int t = 0; t < T; ++t)
        for (std::size_t i = 0; i < b.size(); ++i) y[t * b.size() + i] += b[i];
}

// RMS norm of every head of every row (Qwen3's q_norm / k_norm).
void head_norm(Mat& x, int rows_times_heads, int hd, const std::vector<float>& w, double eps) {
    if (w.empty()) return;
    Mat y = rms_norm(x, rows_times_heads, hd, w, eps);
    x.swap(y);
}

}  // namespace

ReferenceRope reference_rope(const TinyWeights& w, int context_size) {
    const TinyModelSpec& s = w.spec;
    const TinyRopeSpec rs = effective_rope(s);
    const int hd = w.head_dim(), half = hd / 2;
    const double theta = s.rope_theta;
    if (context_size <= 0) context_size = s.context_length;
    ReferenceRope r;
    for (int i = 0; i < half; ++i) r.inv_freq.push_back(1.0 / std::pow(theta, 2.0 * i / hd));
    switch (rs.kind) {
        case RopeScalingKind::None: break;
        case RopeScalingKind::Linear:
            for (double& f : r.inv_freq) f /= rs.factor;
            break;
        case RopeScalingKind::Llama3:
            for (int i = 0; i < half; ++i) r.inv_freq[i] /= w.rope_freqs[i];
            break;
        case RopeScalingKind::Yarn: {
            // HF _compute_yarn_parameters: blend 1/(s·base^(2i/d)) and 1/base^(2i/d) over the pairs
            // between the beta_fast and beta_slow correction dimensions (floored / ceiled).
            const auto dim_of = [&](double rotations) {
                return hd * std::log(rs.original_context / (rotations * 2 * std::numbers::pi)) / (2 * std::log(theta));
            };
            const double low = std::max(std::floor(dim_of(32.0)), 0.0);
            double high = std::min(std::ceil(dim_of(1.0)), hd - 1.0);
            if (low == high) high += 0.001;
            for (int i = 0; i < half; ++i) {
                const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
                const double extrapolation = 1 - ramp;
                r.inv_freq[i] = r.inv_freq[i] / rs.factor * (1 - extrapolation) + r.inv_freq[i] * extrapolation;
            }
            r.attention_factor = rs.factor <= 1 ? 1.0 : 0.1 * std::log(rs.factor) + 1.0;
            break;
        }
        case RopeScalingKind::LongRope: {
            const bool use_long = context_size > rs.original_context;
            const std::vector<float>& ext = use_long ? w.rope_long : w.rope_short;
            for (int i = 0; i < half; ++i) r.inv_freq[i] /= ext[i];
            const double scale = static_cast<double>(s.context_length) / rs.original_context;
            r.attention_factor = scale <= 1 ? 1.0 : std::sqrt(1 + std::log(scale) / std::log(rs.original_context));
            break;
        }
    }
    return r;
}

// x rounded to IEEE half precision (11 significant bits, round to nearest even through nearbyint in
// the default rounding mode; subnormal quantum 2^-24), written independently of the engine's codec.
static double round_to_half(double x) {
    if (x == 0 || !std::isfinite(x)) return x;
    int e = 0;
    std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
    const double quantum = std::ldexp(1.0, std::max(e, -13) - 11);
    return std::nearbyint(x / quantum) * quantum;
}

std::vector<double> reference_logits(const TinyWeights& w, const std::vector<int32_t>& ids,
                                     const AttentionFilter& filter, int context_size, ReferenceTrace* trace,
                                     const StoredAsF16& stored_as_f16) {
    const TinyModelSpec& s = w.spec;
    const int T = static_cast<int>(ids.size()), dim = s.dim, hd = w.head_dim();
    const ReferenceRope rr = reference_rope(w, context_size);
    const int qd = s.n_heads * hd, kvd = s.n_kv_heads * hd, group = s.n_heads / s.n_kv_heads;
    Mat h(static_cast<std::size_t>(T) * dim);
    for (int t = 0; t < T; ++t)
        for (int i = 0; i < dim; ++i) h[t * dim + i] = w.tok_embeddings[static_cast<std::size_t>(ids[t]) * dim + i];

    for (int layer = 0; layer < static_cast<int>(w.layers.size()); ++layer) {
        const auto& L = w.layers[layer];
        Mat xn = rms_norm(h, T, dim, L.attn_norm, s.norm_eps);
        Mat q = linear(xn, T, dim, L.wq, qd), k = linear(xn, T, dim, L.wk, kvd), v = linear(xn, T, dim, L.wv, kvd);
        add_bias(q, T, L.bq);
        add_bias(k, T, L.bk);
        add_bias(v, T, L.bv);
        head_norm(q, T * s.n_heads, hd, L.q_norm, s.norm_eps);
        head_norm(k, T * s.n_kv_heads, hd, L.k_norm, s.norm_eps);
        rope(q, T, s.n_heads, hd, rr);
        rope(k, T, s.n_kv_heads, hd, rr);
        Mat k16, v16;  // the f16-rounded copies, for the (query, key) pairs stored_as_f16 names
        if (stored_as_f16) {
            k16 = k;
            v16 = v;
            for (double& x : k16) x = round_to_half(x);
            for (double& x : v16) x = round_to_half(x);
        }
        Mat att(static_cast<std::size_t>(T) * qd, 0.0);
        if (trace) {
            trace->probs.resize(w.layers.size());
            trace->probs[layer].assign(s.n_heads, std::vector<double>(static_cast<std::size_t>(T) * T, 0.0));
        }
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
                    const Mat& kk = stored_as_f16 && stored_as_f16(t, j) ? k16 : k;
                    double d = 0;
                    for (int i = 0; i < hd; ++i) d += q[t * qd + hh * hd + i] * kk[j * kvd + kh * hd + i];
                    scores[j] = d / std::sqrt(static_cast<double>(hd));
                    mx = std::max(mx, scores[j]);
                }
                double z = 0;
                for (double& sc : scores) z += (sc = sc <= -1e300 ? 0.0 : std::exp(sc - mx));
                if (trace) {
                    auto& p = trace->probs[layer][hh];
                    for (int j = 0; j <= t; ++j) p[static_cast<std::size_t>(t) * T + j] = scores[j] / z;
                }
                for (int j = 0; j <= t; ++j) {
                    const Mat& vv = stored_as_f16 && stored_as_f16(t, j) ? v16 : v;
                    for (int i = 0; i < hd; ++i) att[t * qd + hh * hd + i] += scores[j] / z * vv[j * kvd + kh * hd + i];
                }
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
