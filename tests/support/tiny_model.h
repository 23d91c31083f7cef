// Small random-weight Llama models for self-contained tests, written in both file formats from the
// same weights: a GGUF (Q/K rows permuted to adjacent-pair order, as llama.cpp's converter does)
// and a Hugging Face folder (rotate-half order). Loading both must describe the same model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc::testing {

struct TinyModelSpec {
    int n_layers = 2, dim = 64, n_heads = 4, n_kv_heads = 2, ffn_dim = 96, vocab_size = 320, context_length = 512;
    float rope_theta = 10000.f, rope_linear_scale = 1.f, norm_eps = 1e-5f;
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
    };
    std::vector<Layer> layers;
};

// Deterministic for a given spec (own RNG, independent of the standard library): matrices are
// normal * 1/sqrt(in), embeddings normal, norm weights 1 + 0.1 * normal.
TinyWeights make_tiny_weights(const TinyModelSpec& spec);

// GGUF v3 (llama architecture). Weights in `dtype` (F32/F16/BF16/Q8_0), norms always F32. The
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
