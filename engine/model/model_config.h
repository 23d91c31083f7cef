// Hyper-parameters of a decoder-only transformer of one of the supported families (see
// architecture.h: Llama 1/2/3, Mistral, Qwen2/2.5, Qwen3, Phi-3/3.5), read from GGUF metadata or a
// Hugging Face config.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/rope_scaling.h"

namespace snapdoc {

// How RoPE pairs up the dimensions of a head. GGUF `llama` tensors were permuted at conversion so
// that adjacent dimensions (2i, 2i+1) rotate together; Hugging Face checkpoints, and GGUF files of
// the NEOX-rope families (qwen2, qwen3, phi3), rotate dimension i with i + head_dim/2
// ("rotate_half"). The weights decide which one is correct.
enum class RopeStyle : uint8_t { AdjacentPairs, RotateHalf };

struct ModelConfig {
    std::string architecture = "llama";  // an Architecture's gguf_name (architecture.h)
    std::string name;
    int n_layers = 0;
    int dim = 0;          // hidden size
    int n_heads = 0;      // query heads
    int n_kv_heads = 0;   // key/value heads (GQA when < n_heads)
    int head_dim = 0;     // usually dim / n_heads (Qwen3 0.6B: 128 with dim 1024 and 16 heads)
    int ffn_dim = 0;      // SwiGLU intermediate size
    int vocab_size = 0;
    int context_length = 0;  // the declared (training) context; backends default to it
    float norm_eps = 1e-5f;
    float rope_theta = 10000.0f;
    RopeScaling rope_scaling;  // none / linear / llama3 / yarn / longrope, with its factors
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
    // Layer-major n_layers × n_heads, 1 where a query head writes into the residual stream; empty
    // when every head does (engine/model/head_writes.h: a zero output-projection slice writes
    // nothing). Citations leave silent heads out. Not part of any cache key: it follows the weights.
    std::vector<uint8_t> head_writes;

    int group_size() const { return n_kv_heads > 0 ? n_heads / n_kv_heads : 0; }
    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }

    // Throws FormatError naming the first inconsistent field.
    void validate() const;
};

std::string_view rope_style_name(RopeStyle s);

}  // namespace snapdoc
