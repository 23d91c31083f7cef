// Hyper-parameters of a Llama-family model (Llama 1/2/3, Mistral, TinyLlama...), read from GGUF
// metadata or a Hugging Face config.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc {

// How RoPE pairs up the dimensions of a head. GGUF `llama` tensors were permuted at conversion so
// that adjacent dimensions (2i, 2i+1) rotate together; Hugging Face checkpoints rotate dimension i
// with i + head_dim/2 ("rotate_half"). The weights decide which one is correct.
enum class RopeStyle : uint8_t { AdjacentPairs, RotateHalf };

struct ModelConfig {
    std::string architecture = "llama";
    std::string name;
    int n_layers = 0;
    int dim = 0;          // hidden size
    int n_heads = 0;      // query heads
    int n_kv_heads = 0;   // key/value heads (GQA when < n_heads)
    int head_dim = 0;     // usually dim / n_heads
    int ffn_dim = 0;      // SwiGLU intermediate size
    int vocab_size = 0;
    int context_length = 0;
    float norm_eps = 1e-5f;
    float rope_theta = 10000.0f;
    float rope_linear_scale = 1.0f;  // positions are divided by this (linear RoPE scaling)
    RopeStyle rope_style = RopeStyle::AdjacentPairs;
    bool tied_embeddings = false;
    DType weight_dtype = DType::F32;  // dtype of the bulk of the weights (for reports)
    int bos_id = 1;  // -1: the model defines none
    int eos_id = 2;  // -1: the model defines none
    // Every id that ends generation (EOS, EOT, EOM, ...), sorted; see special_tokens.h.
    std::vector<int32_t> end_of_generation_ids;
    // Sliding-window attention span (Mistral 7B v0.1: 4096), 0 = none: a query at position p sees
    // keys at positions > p - sliding_window only (itself included), as Hugging Face defines it.
    int sliding_window = 0;

    int group_size() const { return n_kv_heads > 0 ? n_heads / n_kv_heads : 0; }
    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }

    // Throws FormatError naming the first inconsistent field.
    void validate() const;
};

std::string_view rope_style_name(RopeStyle s);

}  // namespace snapdoc
