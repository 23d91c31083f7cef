#include "engine/model/architecture.h"

#include <array>

namespace snapdoc {

namespace {

// llama.cpp's GGUF tensor names (llama-arch.cpp LLM_TENSOR_NAMES), shared by every family here.
constexpr TensorNames kGgufSeparate = {
    .tok_embeddings = "token_embd.weight",
    .layer_prefix = "blk.",
    .attn_norm = "attn_norm.weight",
    .wq = "attn_q.weight",
    .wk = "attn_k.weight",
    .wv = "attn_v.weight",
    .bq = "attn_q.bias",
    .bk = "attn_k.bias",
    .bv = "attn_v.bias",
    .q_norm = "attn_q_norm.weight",
    .k_norm = "attn_k_norm.weight",
    .wo = "attn_output.weight",
    .ffn_norm = "ffn_norm.weight",
    .w_gate = "ffn_gate.weight",
    .w_up = "ffn_up.weight",
    .w_down = "ffn_down.weight",
    .out_norm = "output_norm.weight",
    .output = "output.weight",
    .rope_freqs = "rope_freqs.weight",
};

// transformers' module names (LlamaForCausalLM, Qwen2/3ForCausalLM, MistralForCausalLM).
constexpr TensorNames kHfSeparate = {
    .tok_embeddings = "model.embed_tokens.weight",
    .layer_prefix = "model.layers.",
    .attn_norm = "input_layernorm.weight",
    .wq = "self_attn.q_proj.weight",
    .wk = "self_attn.k_proj.weight",
    .wv = "self_attn.v_proj.weight",
    .bq = "self_attn.q_proj.bias",
    .bk = "self_attn.k_proj.bias",
    .bv = "self_attn.v_proj.bias",
    .q_norm = "self_attn.q_norm.weight",
    .k_norm = "self_attn.k_norm.weight",
    .wo = "self_attn.o_proj.weight",
    .ffn_norm = "post_attention_layernorm.weight",
    .w_gate = "mlp.gate_proj.weight",
    .w_up = "mlp.up_proj.weight",
    .w_down = "mlp.down_proj.weight",
    .out_norm = "model.norm.weight",
    .output = "lm_head.weight",
};

// The names of a fused family: one [q; k; v] and one [gate; up] tensor instead of the separate
// projections, no biases or q/k norms, and the given per-pair rope factor tensors.
constexpr TensorNames fused(TensorNames n, std::string_view wqkv, std::string_view w_gate_up,
                            std::string_view rope_factors_short = {},
                            std::string_view rope_factors_long = {}) {
    n.wq = n.wk = n.wv = n.bq = n.bk = n.bv = n.q_norm = n.k_norm = n.w_gate = n.w_up = n.rope_freqs = {};
    n.wqkv = wqkv;
    n.w_gate_up = w_gate_up;
    n.rope_factors_short = rope_factors_short;
    n.rope_factors_long = rope_factors_long;
    return n;
}

// Phi-3 GGUF: attn_qkv, and ffn_up holds [gate; up] (llama.cpp splits it with swiglu). HF
// Phi3ForCausalLM: qkv_proj rows [q; k; v], gate_up_proj rows [gate; up] (HF `chunk(2)`).
constexpr TensorNames kGgufPhi3 = fused(kGgufSeparate, "attn_qkv.weight", "ffn_up.weight",
                                        "rope_factors_short.weight", "rope_factors_long.weight");
constexpr TensorNames kHfPhi3 = fused(kHfSeparate, "self_attn.qkv_proj.weight", "mlp.gate_up_proj.weight");

const std::array<Architecture, 5> kArchitectures = {{
    // Llama 1/2/3.x (Llama 3.1's rope_freqs.weight), and Mistral v0.3 files, which converters
    // write as `llama`. llama.cpp loads q/k/v biases for llama when a file has them.
    {.gguf_name = "llama",
     .hf_class = "LlamaForCausalLM",
     .hf_model_type = "llama",
     .qkv_bias = Presence::Optional,
     .gguf_rope_style = RopeStyle::AdjacentPairs,
     .sliding_window = true,
     .gguf = kGgufSeparate,
     .hf = kHfSeparate},
    {.gguf_name = "mistral",
     .hf_class = "MistralForCausalLM",
     .hf_model_type = "mistral",
     .qkv_bias = Presence::Optional,
     .gguf_rope_style = RopeStyle::AdjacentPairs,
     .sliding_window = true,
     .gguf = kGgufSeparate,
     .hf = kHfSeparate},
    // Qwen2 / Qwen2.5: biases on q, k and v (not on o).
    {.gguf_name = "qwen2",
     .hf_class = "Qwen2ForCausalLM",
     .hf_model_type = "qwen2",
     .qkv_bias = Presence::Required,
     .gguf = kGgufSeparate,
     .hf = kHfSeparate},
    // Qwen3: no biases, RMS norm per head on q and k before RoPE; head_dim given explicitly.
    {.gguf_name = "qwen3",
     .hf_class = "Qwen3ForCausalLM",
     .hf_model_type = "qwen3",
     .qk_norm = true,
     .gguf = kGgufSeparate,
     .hf = kHfSeparate},
    // Phi-3 / Phi-3.5: fused projections, LongRoPE factors on the long-context variants.
    {.gguf_name = "phi3",
     .hf_class = "Phi3ForCausalLM",
     .hf_model_type = "phi3",
     .fused_qkv = true,
     .fused_gate_up = true,
     .gguf = kGgufPhi3,
     .hf = kHfPhi3},
}};

template <typename F>
std::string join(F&& field) {
    std::string out;
    for (const Architecture& a : kArchitectures) {
        if (!out.empty()) out += ", ";
        out += field(a);
    }
    return out;
}

}  // namespace

std::span<const Architecture> architectures() {
    return kArchitectures;
}

const Architecture* find_gguf_architecture(std::string_view name) {
    for (const Architecture& a : kArchitectures)
        if (a.gguf_name == name) return &a;
    return nullptr;
}

const Architecture* find_hf_architecture(std::string_view hf_class) {
    for (const Architecture& a : kArchitectures)
        if (a.hf_class == hf_class) return &a;
    return nullptr;
}

const Architecture* find_hf_model_type(std::string_view model_type) {
    for (const Architecture& a : kArchitectures)
        if (a.hf_model_type == model_type) return &a;
    return nullptr;
}

std::string supported_gguf_architectures() {
    return join([](const Architecture& a) { return a.gguf_name; });
}

std::string supported_hf_architectures() {
    return join([](const Architecture& a) { return a.hf_class; });
}

}  // namespace snapdoc
