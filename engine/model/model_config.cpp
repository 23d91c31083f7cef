#include "engine/model/model_config.h"

#include <cmath>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

// Generous upper bounds: far above any real Llama-family model, low enough that products such as
// n_heads * head_dim or vocab * dim cannot overflow the int / int64 arithmetic that uses them.
constexpr int64_t kMaxLayers = 1 << 16;
constexpr int64_t kMaxDim = 1 << 20;
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxHeadDim = 1 << 16;
constexpr int64_t kMaxProjection = 1 << 24;  // n_heads * head_dim
constexpr int64_t kMaxFfn = 1 << 24;
constexpr int64_t kMaxVocab = 1 << 24;
constexpr int64_t kMaxContext = 1 << 30;

[[noreturn]] void bad(const std::string& what) { throw FormatError("invalid model config: " + what); }

void check_range(const char* field, int64_t v, int64_t max) {
    if (v <= 0) bad(std::string(field) + " is " + std::to_string(v) + "; it must be positive");
    if (v > max) bad(std::string(field) + " is " + std::to_string(v) + ", more than the supported " + std::to_string(max));
}

void check_positive_finite(const char* field, float v) {
    if (!(v > 0.0f) || !std::isfinite(v)) bad(std::string(field) + " is " + std::to_string(v) + "; it must be positive and finite");
}

}  // namespace

void ModelConfig::validate() const {
    check_range("n_layers", n_layers, kMaxLayers);
    check_range("dim", dim, kMaxDim);
    check_range("n_heads", n_heads, kMaxHeads);
    check_range("n_kv_heads", n_kv_heads, kMaxHeads);
    check_range("head_dim", head_dim, kMaxHeadDim);
    check_range("ffn_dim", ffn_dim, kMaxFfn);
    check_range("vocab_size", vocab_size, kMaxVocab);
    check_range("context_length", context_length, kMaxContext);
    if (n_kv_heads > n_heads || n_heads % n_kv_heads != 0) {
        bad("n_kv_heads (" + std::to_string(n_kv_heads) + ") must divide n_heads (" + std::to_string(n_heads) + ")");
    }
    // RoPE rotates pairs of dimensions.
    if (head_dim % 2 != 0) bad("head_dim (" + std::to_string(head_dim) + ") must be even");
    check_range("n_heads * head_dim", int64_t{n_heads} * head_dim, kMaxProjection);
    check_positive_finite("norm_eps", norm_eps);
    check_positive_finite("rope_theta", rope_theta);
    validate_rope_scaling(rope_scaling, head_dim, "invalid model config");
    if (bos_id < -1 || bos_id >= vocab_size) {
        bad("bos_id (" + std::to_string(bos_id) + ") is outside the vocabulary of " + std::to_string(vocab_size));
    }
    if (eos_id < -1 || eos_id >= vocab_size) {
        bad("eos_id (" + std::to_string(eos_id) + ") is outside the vocabulary of " + std::to_string(vocab_size));
    }
}

std::string_view rope_style_name(RopeStyle s) {
    switch (s) {
        case RopeStyle::AdjacentPairs: return "adjacent-pairs";
        case RopeStyle::RotateHalf: return "rotate-half";
    }
    return "unknown";
}

}  // namespace snapdoc
