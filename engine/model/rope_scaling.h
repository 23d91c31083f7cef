// How a model stretches its rotary position embedding beyond the training context, and the one
// function every backend uses to turn that description into per-pair rotation frequencies.
//
// All kinds reduce to the same computation (llama.cpp's ggml_rope_ext, Hugging Face's
// ROPE_INIT_FUNCTIONS): pair i of a head rotates by position · inv_freq[i], and cos/sin are multiplied
// by one attention factor. The kinds differ only in how inv_freq and that factor are derived.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

enum class RopeScalingKind : uint8_t {
    None,
    Linear,    // positions divided by `factor` (HF "linear", GGUF rope.scaling.type linear)
    Llama3,    // per-pair frequency factors only (GGUF rope_freqs.weight, HF rope_type "llama3")
    Yarn,      // NTK-by-parts interpolation + attention factor (arXiv 2309.00071; Qwen2.5 128K)
    LongRope,  // per-pair short/long factors + attention factor (Phi-3/3.5)
};

struct RopeScaling {
    RopeScalingKind kind = RopeScalingKind::None;
    // Linear: positions are divided by it. Yarn: the extension factor s (low frequencies are divided
    // by s). Llama3 / LongRope: kept for reports only (the factors already say everything).
    float factor = 1.0f;
    // Training context before the extension (Yarn: sets the ramp; LongRope: above it the long
    // factors are used). 0 when the kind needs none.
    int original_context = 0;
    // Yarn ramp bounds in rotations over original_context (HF and llama.cpp default 32 / 1).
    float beta_fast = 32.0f, beta_slow = 1.0f;
    bool yarn_truncate = true;  // floor/ceil the correction range (HF `truncate`; llama.cpp always does)
    // Multiplies cos and sin (so q·k by its square): Yarn 0.1·ln(s) + 1, LongRope
    // sqrt(1 + ln(s) / ln(original_context)), else 1.
    float attention_factor = 1.0f;
    // One value per rotated pair (head_dim / 2): the pair's frequency is divided by it. Llama3
    // factors, LongRope short factors. Empty: none. Any kind may carry them (llama.cpp applies a
    // rope_freqs tensor whatever the scaling type).
    std::vector<float> freq_factors;
    // LongRope only: used instead of freq_factors when the context size exceeds original_context.
    std::vector<float> long_freq_factors;
};

// The frequencies a backend rotates with, for one model at one context size.
struct RopeFrequencies {
    std::vector<double> inv_freq;   // radians per position, one per pair
    double attention_factor = 1.0;  // cos/sin multiplier
    bool long_factors = false;      // LongRope picked long_freq_factors
};

// `context_size` is the context the model runs with (llama.cpp's n_ctx); it matters only for
// LongRope, which uses the long factors when it exceeds original_context — for every position, as
// llama.cpp does (Hugging Face switches per forward pass on the current sequence length instead).
RopeFrequencies rope_frequencies(int head_dim, double theta, const RopeScaling& scaling, int context_size);

// Llama 3.1's per-pair factors (HF `_compute_llama3_parameters`, the factors llama.cpp's converter
// stores as rope_freqs.weight): 1 for wavelengths under original_context / high_freq_factor,
// `factor` above original_context / low_freq_factor, a smooth blend between.
std::vector<float> llama3_frequency_factors(int head_dim, double theta, double factor, double low_freq_factor,
                                            double high_freq_factor, int original_context);

// Throws FormatError "<source>: ..." naming the first inconsistent field (factor lengths included).
void validate_rope_scaling(const RopeScaling& scaling, int head_dim, const std::string& source);

std::string_view rope_scaling_kind_name(RopeScalingKind kind);
// One line for `info`: "none", "linear x4", "yarn x4 from 32768 (attention x1.139)", ...
std::string rope_scaling_summary(const RopeScaling& scaling);

}  // namespace snapdoc
