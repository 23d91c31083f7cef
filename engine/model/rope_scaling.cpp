#include "engine/model/rope_scaling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

// The pair index at which a frequency completes `rotations` turns over `context` positions (YaRN's
// "correction dimension"; HF find_correction_dim, llama.cpp ggml_rope_yarn_corr_dim).
double yarn_correction_dim(double rotations, int head_dim, double theta, int context) {
    return head_dim * std::log(context / (rotations * 2.0 * std::numbers::pi)) / (2.0 * std::log(theta));
}

// Weight of the unscaled (extrapolated) frequency for each pair: 1 for fast-rotating pairs (below
// the beta_fast dimension), 0 for slow ones (above beta_slow), linear in between.
std::vector<double> yarn_extrapolation_weights(int head_dim, double theta, const RopeScaling& s) {
    double low = yarn_correction_dim(s.beta_fast, head_dim, theta, s.original_context);
    double high = yarn_correction_dim(s.beta_slow, head_dim, theta, s.original_context);
    if (s.yarn_truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(head_dim - 1));
    if (low == high) high += 0.001;  // HF: "prevent singularity"; llama.cpp: max(0.001, high - low)
    std::vector<double> w(head_dim / 2);
    for (int i = 0; i < head_dim / 2; ++i) w[i] = 1.0 - std::clamp((i - low) / (high - low), 0.0, 1.0);
    return w;
}

[[noreturn]] void bad(const std::string& source, const std::string& what) {
    throw FormatError(source + ": " + what);
}

void check_factors(const std::vector<float>& f, const char* what, int head_dim, const std::string& source) {
    if (f.empty()) return;
    if (static_cast<int>(f.size()) != head_dim / 2) {
        bad(source, std::string(what) + " has " + std::to_string(f.size()) +
                        " values, expected head_dim / 2 = " + std::to_string(head_dim / 2));
    }
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (!(f[i] > 0.0f) || !std::isfinite(f[i])) {
            bad(source, std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(f[i]) +
                            "; rope frequency factors must be positive and finite");
        }
    }
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

}  // namespace

RopeFrequencies rope_frequencies(int head_dim, double theta, const RopeScaling& s, int context_size) {
    RopeFrequencies out;
    const int half = head_dim / 2;
    out.long_factors = s.kind == RopeScalingKind::LongRope && !s.long_freq_factors.empty() &&
                       context_size > s.original_context;
    const std::vector<float>& factors = out.long_factors ? s.long_freq_factors : s.freq_factors;
    out.inv_freq.resize(half);
    for (int i = 0; i < half; ++i) {
        double f = std::pow(theta, -2.0 * i / head_dim);
        if (!factors.empty()) f /= factors[i];
        out.inv_freq[i] = f;
    }
    if (s.kind == RopeScalingKind::Linear) {
        for (double& f : out.inv_freq) f /= s.factor;
    } else if (s.kind == RopeScalingKind::Yarn) {
        // Interpolate (divide by s) the slow pairs, keep the fast ones, blend in between.
        const std::vector<double> extrapolate = yarn_extrapolation_weights(head_dim, theta, s);
        for (int i = 0; i < half; ++i) {
            const double f = out.inv_freq[i];
            out.inv_freq[i] = f / s.factor * (1.0 - extrapolate[i]) + f * extrapolate[i];
        }
    }
    out.attention_factor = s.attention_factor;
    return out;
}

std::vector<float> llama3_frequency_factors(int head_dim, double theta, double factor, double low_freq_factor,
                                            double high_freq_factor, int original_context) {
    const double low_freq_wavelen = original_context / low_freq_factor;
    const double high_freq_wavelen = original_context / high_freq_factor;
    std::vector<float> out(head_dim / 2);
    for (int i = 0; i < head_dim / 2; ++i) {
        const double wavelen = 2.0 * std::numbers::pi / std::pow(theta, -2.0 * i / head_dim);
        double f;
        if (wavelen < high_freq_wavelen) {
            f = 1.0;
        } else if (wavelen > low_freq_wavelen) {
            f = factor;
        } else {
            const double smooth =
                (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
            f = 1.0 / ((1.0 - smooth) / factor + smooth);
        }
        out[i] = static_cast<float>(f);
    }
    return out;
}

void validate_rope_scaling(const RopeScaling& s, int head_dim, const std::string& source) {
    const auto positive = [&](const char* what, double v) {
        if (!(v > 0.0) || !std::isfinite(v))
            bad(source, std::string(what) + " is " + fmt(v) + "; it must be positive and finite");
    };
    positive("rope scaling factor", s.factor);
    positive("rope attention factor", s.attention_factor);
    if (s.kind == RopeScalingKind::Yarn || s.kind == RopeScalingKind::LongRope) {
        if (s.original_context <= 0) {
            bad(source, std::string(rope_scaling_kind_name(s.kind)) +
                            " rope scaling needs the original context length");
        }
    }
    if (s.kind == RopeScalingKind::Yarn) {
        positive("yarn beta_fast", s.beta_fast);
        positive("yarn beta_slow", s.beta_slow);
    }
    check_factors(s.freq_factors,
                  s.kind == RopeScalingKind::LongRope ? "rope short factors" : "rope frequency factors",
                  head_dim, source);
    check_factors(s.long_freq_factors, "rope long factors", head_dim, source);
    if (s.kind == RopeScalingKind::LongRope && (s.freq_factors.empty() || s.long_freq_factors.empty())) {
        bad(source, "LongRoPE scaling needs both short and long factors");
    }
    if (s.kind != RopeScalingKind::LongRope && !s.long_freq_factors.empty()) {
        bad(source, "long rope factors are given but the rope scaling is not LongRoPE");
    }
}

std::string_view rope_scaling_kind_name(RopeScalingKind kind) {
    switch (kind) {
        case RopeScalingKind::None:
            return "none";
        case RopeScalingKind::Linear:
            return "linear";
        case RopeScalingKind::Llama3:
            return "llama3";
        case RopeScalingKind::Yarn:
            return "yarn";
        case RopeScalingKind::LongRope:
            return "longrope";
    }
    return "unknown";
}

std::string rope_scaling_summary(const RopeScaling& s) {
    std::string out(rope_scaling_kind_name(s.kind));
    switch (s.kind) {
        case RopeScalingKind::None:
            break;
        case RopeScalingKind::Linear:
            out += " x" + fmt(s.factor);
            break;
        case RopeScalingKind::Llama3:
            out += " frequency factors";
            break;
        case RopeScalingKind::Yarn:
            out += " x" + fmt(s.factor) + " from " + std::to_string(s.original_context);
            break;
        case RopeScalingKind::LongRope:
            out += " short/long factors, long above " + std::to_string(s.original_context);
            break;
    }
    if (s.kind != RopeScalingKind::Llama3 && !s.freq_factors.empty() && s.kind != RopeScalingKind::LongRope)
        out += " + frequency factors";
    if (s.attention_factor != 1.0f) out += " (attention x" + fmt(s.attention_factor) + ")";
    return out;
}

}  // namespace snapdoc
