// One description per supported model family: how its tensors are named in each checkpoint format,
// which optional parts (projection biases, q/k norms, fused projections) it has, how its GGUF files
// store Q/K for RoPE, and the metadata prefix. The GGUF and Hugging Face loaders read only this
// table, so a new family is a table entry plus tests. Backends never look at the family: they see
// what the loaders produced (optional TensorViews in LayerWeights, ModelConfig::rope_scaling).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/model/model_config.h"

namespace snapdoc {

enum class Presence : uint8_t { Absent, Optional, Required };

// Names of one family's tensors in one format. Per-layer names are suffixes after
// `layer_prefix` + the layer index + "."; an empty name means the format has no such tensor here.
struct TensorNames {
    std::string_view tok_embeddings{}, layer_prefix{}, attn_norm{};
    std::string_view wq{}, wk{}, wv{};    // separate projections (when the family is not fused)
    std::string_view wqkv{};              // fused [q; k; v] rows (fused_qkv)
    std::string_view bq{}, bk{}, bv{};    // projection biases (qkv_bias)
    std::string_view q_norm{}, k_norm{};  // per-head RMS norm weights [head_dim] (qk_norm)
    std::string_view wo{}, ffn_norm{};
    std::string_view w_gate{}, w_up{};  // separate (when the family is not fused)
    std::string_view w_gate_up{};       // fused [gate; up] rows (fused_gate_up)
    std::string_view w_down{}, out_norm{}, output{};
    // Model-wide per-pair rope frequency factors (GGUF only; HF derives them from config.json).
    std::string_view rope_freqs{}, rope_factors_short{}, rope_factors_long{};
};

struct Architecture {
    std::string_view gguf_name;      // general.architecture; also the GGUF metadata key prefix
    std::string_view hf_class;       // config.json "architectures" entry
    std::string_view hf_model_type;  // config.json "model_type"
    Presence qkv_bias = Presence::Absent;
    bool qk_norm = false;        // RMS norm per head on q and k, after the biases, before RoPE (Qwen3)
    bool fused_qkv = false;      // one projection whose rows are [q; k; v] (Phi-3)
    bool fused_gate_up = false;  // one projection whose rows are [gate; up] (Phi-3)
    // Q/K row order in GGUF files: llama.cpp's converter permutes `llama` Q/K to adjacent pairs;
    // families llama.cpp runs with NEOX rope keep the Hugging Face (rotate-half) order.
    RopeStyle gguf_rope_style = RopeStyle::RotateHalf;
    // Whether a sliding-window key is honoured. llama.cpp ignores it for qwen2/qwen3 (whose HF
    // configs carry one with use_sliding_window false) and disables it for phi3; snapdoc follows.
    bool sliding_window = false;
    TensorNames gguf, hf;
};

std::span<const Architecture> architectures();

// nullptr when unknown.
const Architecture* find_gguf_architecture(std::string_view gguf_name);
const Architecture* find_hf_architecture(std::string_view hf_class);
const Architecture* find_hf_model_type(std::string_view model_type);

// "llama, mistral, qwen2, ..." / "LlamaForCausalLM, ..." for error messages.
std::string supported_gguf_architectures();
std::string supported_hf_architectures();

}  // namespace snapdoc
