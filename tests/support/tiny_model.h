// Small random-weight models of every supported family (llama, mistral, qwen2, qwen3, phi3) for
// self-contained tests, written in both file formats from the same weights: a GGUF as llama.cpp's
// converter writes it (llama Q/K rows permuted to adjacent-pair order; fused phi3 tensors; rope
// factor tensors) and a Hugging Face folder (rotate-half order, rope_scaling in config.json).
// Loading both must describe the same model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/rope_scaling.h"

namespace snapdoc::testing {

// Rope scaling of a tiny model, in the terms of the Hugging Face config (the writers translate).
struct TinyRopeSpec {
    RopeScalingKind kind = RopeScalingKind::None;
    float factor = 1.f;           // linear / llama3 / yarn
    int original_context = 0;     // llama3 / yarn / longrope
    float low_freq_factor = 1.f, high_freq_factor = 4.f;  // llama3
    // longrope: the factors are made by make_tiny_weights (short near 1, long growing to ~20).
};

struct TinyModelSpec {
    std::string arch = "llama";  // GGUF architecture name (architecture.h)
    int n_layers = 2, dim = 64, n_heads = 4, n_kv_heads = 2, ffn_dim = 96, vocab_size = 320, context_length = 512;
    int head_dim = 0;  // 0: dim / n_heads (Qwen3 may differ: written as key_length / head_dim)
    float rope_theta = 10000.f, rope_linear_scale = 1.f, norm_eps = 1e-5f;
    TinyRopeSpec rope;  // rope_linear_scale != 1 is shorthand for rope.kind Linear
    bool tied = false;
    int sliding_window = 0;  // > 0: Mistral-style sliding-window attention (both file formats)
    uint64_t seed = 1;
    // Optional path of a SentencePiece .model to embed (its piece count must equal vocab_size).
    std::string tokenizer_model;
};

// All matrices in Hugging Face layout: row-major [out, in], Q/K rows in rotate-half order.
struct TinyWeights {
    TinyModelSpec spec;
    std::vector<float> tok_embeddings;  // [vocab, dim]
    std::vector<float> out_norm;        // [dim]
    std::vector<float> output;          // [vocab, dim]; empty when spec.tied (tok_embeddings is the head)
    struct Layer {
        std::vector<float> attn_norm, wq, wk, wv, wo, ffn_norm, w_gate, w_up, w_down;
        std::vector<float> bq, bk, bv;    // qwen2 only
        std::vector<float> q_norm, k_norm;  // qwen3 only, [head_dim]
    };
    std::vector<Layer> layers;
    // Per rotated pair (head_dim / 2): llama3 factors as llama.cpp's converter computes them
    // (llama3_factors below), or LongRoPE's short and long factors. Empty when unused.
    std::vector<float> rope_freqs, rope_short, rope_long;

    int head_dim() const { return spec.head_dim > 0 ? spec.head_dim : spec.dim / spec.n_heads; }
};

// The rope scaling a spec describes (rope_linear_scale folded into kind Linear).
TinyRopeSpec effective_rope(const TinyModelSpec& spec);

// Llama 3.1's per-pair rope factors as convert_hf_to_gguf.py computes rope_freqs.weight (test
// code of its own, independent of the engine's).
std::vector<float> llama3_factors(int head_dim, double theta, double factor, double low_freq_factor,
                                  double high_freq_factor, int original_context);

// Deterministic for a given spec (own RNG, independent of the standard library): matrices are
// normal * 1/sqrt(in), embeddings normal, norm weights 1 + 0.1 * normal.
TinyWeights make_tiny_weights(const TinyModelSpec& spec);

// GGUF v3 (spec.arch). Weights in `dtype` (F32/F16/BF16/Q8_0), norms always F32. The
// tokenizer metadata comes from spec.tokenizer_model when set, else a synthetic vocabulary of
// vocab_size pieces: <unk>, <s>, </s>, the 256 byte pieces <0x00>..<0xFF> (when vocab_size >= 260),
// then normal pieces ("▁", letters, "▁a", ...). Throws on a vocabulary/spec mismatch.
void write_tiny_gguf(const std::filesystem::path& file, const TinyWeights& w, DType dtype);

// Hugging Face folder (created if needed): config.json, model.safetensors (or `shards` files plus
// model.safetensors.index.json), and a copy of spec.tokenizer_model as tokenizer.model when set
// (otherwise the folder has no tokenizer). dtype F32/F16/BF16 (safetensors has no Q8_0).
void write_tiny_hf(const std::filesystem::path& dir, const TinyWeights& w, DType dtype, int shards = 1);

// Q/K rows from Hugging Face (rotate-half) order to GGUF (adjacent-pair) order and back, for a
// [n_heads * head_dim, cols] matrix (llama.cpp convert: per head reshape [2, hd/2, cols], swap).
std::vector<float> permute_qk_for_gguf(const std::vector<float>& m, int n_heads, int cols);
std::vector<float> unpermute_qk_from_gguf(const std::vector<float>& m, int n_heads, int cols);

// The synthetic vocabulary write_tiny_gguf uses when spec.tokenizer_model is empty.
std::vector<std::string> synthetic_vocab_pieces(int vocab_size);

}  // namespace snapdoc::testing
