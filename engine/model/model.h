// A loaded model: configuration, weight views into memory-mapped files, and what is needed to
// build its tokenizer. Loading never reads a whole weight file into memory: tensors stay in the
// mapping and are converted by the backend when it needs them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/tensor.h"

namespace snapdoc {

class MappedFile;
class BpeTokenizer;

// Families with fused projections (Phi-3's qkv and gate_up) get wq/wk/wv and w_gate/w_up as row
// slices of the fused tensor (views into it, no copy). Optional parts are invalid views
// (`!valid()`) when the family or file has none.
struct LayerWeights {
    TensorView attn_norm;  // [dim]
    TensorView wq;         // [n_heads*head_dim, dim]
    TensorView wk;         // [n_kv_heads*head_dim, dim]
    TensorView wv;         // [n_kv_heads*head_dim, dim]
    TensorView bq, bk, bv;       // optional projection biases [n_heads*head_dim] / [n_kv_heads*head_dim] (Qwen2)
    TensorView q_norm, k_norm;   // optional per-head RMS norm weights [head_dim], before RoPE (Qwen3)
    TensorView wo;         // [dim, n_heads*head_dim]
    TensorView ffn_norm;   // [dim]
    TensorView w_gate;     // [ffn_dim, dim]
    TensorView w_up;       // [ffn_dim, dim]
    TensorView w_down;     // [dim, ffn_dim]

    // Every view of the layer, optional ones included (check valid()).
    std::vector<const TensorView*> views() const {
        return {&attn_norm, &wq, &wk, &wv, &bq, &bk, &bv, &q_norm, &k_norm, &wo, &ffn_norm, &w_gate, &w_up, &w_down};
    }
};

struct ModelWeights {
    TensorView tok_embeddings;  // [vocab, dim]
    std::vector<LayerWeights> layers;
    TensorView out_norm;  // [dim]
    TensorView output;    // [vocab, dim]; same view as tok_embeddings when tied
};

enum class ModelFormat : uint8_t { Gguf, HuggingFace };

struct Model {
    ModelConfig config;
    ModelWeights weights;
    ModelFormat format = ModelFormat::Gguf;
    std::filesystem::path path;

    // Serialized SentencePiece ModelProto (built from GGUF metadata, or the bytes of the HF folder's
    // tokenizer.model). Empty if the model carries no tokenizer.
    std::string tokenizer_proto;
    // Byte-level BPE vocabulary (GGUF "gpt2", or an HF folder's tokenizer.json), checked and built
    // once at load (tokens, types, merges, pre-tokenizer, bos/eos, add_bos); null if none. At most
    // one of tokenizer_proto / tokenizer_bpe is set; Tokenizer::from_model picks.
    std::shared_ptr<const BpeTokenizer> tokenizer_bpe;
    // Whether prompts start with BOS / end with EOS as the files say (GGUF
    // tokenizer.ggml.add_bos_token, tokenizer_config.json add_bos_token); unset: the tokenizer's default.
    std::optional<bool> tokenizer_add_bos;
    std::optional<bool> tokenizer_add_eos;
    // Why the model has no tokenizer (e.g. an unsupported GGUF tokenizer kind, no tokenizer.model
    // or tokenizer.json in the folder); "" when the model has its tokenizer.
    std::string tokenizer_error;
    bool has_tokenizer() const { return !tokenizer_proto.empty() || tokenizer_bpe != nullptr; }
    // Jinja chat template text from GGUF `tokenizer.chat_template` or tokenizer_config.json ("" if none).
    std::string chat_template;
    // What each attention head attends to, layer-major (n_layers x n_heads query heads, "" where
    // unnamed), from the snapdoc GGUF key `snapdoc.attention.head_roles` (docs/demo_model.md, "Head
    // roles"); empty when the file has none. Shown by `inspect --json` and meant for the inspector.
    std::vector<std::string> head_roles;

    // Keeps the mappings (and any owned converted buffers) alive as long as the views are used.
    std::vector<std::shared_ptr<const MappedFile>> mappings;
    std::vector<std::shared_ptr<const std::vector<uint8_t>>> owned_buffers;

    int64_t parameter_count() const;
    // Bytes of all weight tensors as stored in the file(s).
    int64_t weight_bytes() const;
    // Every distinct weight view once (a tied head is the embedding matrix itself; row slices of a
    // fused tensor are views of their own): embeddings, layers, final norm, output head.
    std::vector<const TensorView*> unique_weights() const;
};

// Opens a `.gguf` file or a Hugging Face folder (config.json + *.safetensors + tokenizer.model).
// Throws FormatError with a message naming the file and what is wrong.
Model load_model(const std::filesystem::path& path);

}  // namespace snapdoc
