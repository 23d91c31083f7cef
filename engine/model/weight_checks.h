// Checks shared by the GGUF and Hugging Face loaders: every weight's exact shape against the
// config, and natural alignment of its data (a misaligned tensor is copied into an owned buffer so
// the backend can read it as float / uint16 without undefined behaviour).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/model/tensor.h"

namespace snapdoc {

// "[64, 32]"
std::string shape_string(const std::vector<int64_t>& shape);

// Throws FormatError "<source>: tensor 'x' has shape [..], expected [..]" on a mismatch.
void check_shape(const TensorView& v, const std::vector<int64_t>& expected, const std::string& source);

// Returns `v`, or a copy of it in a buffer owned by `model` if its data is not aligned for its type.
TensorView aligned_view(const TensorView& v, Model& model);

// The expected shape of each weight for a config (row-major, outermost first), shared by loaders
// and tests.
struct ExpectedShapes {
    std::vector<int64_t> tok_embeddings, norm, wq, wk, wv, wo, w_gate, w_up, w_down, output;
};
ExpectedShapes expected_shapes(const ModelConfig& c);

// How one checkpoint format names the Llama weights. Per-layer names are suffixes after
// `layer_prefix` + the layer index + ".".
struct LlamaTensorNames {
    std::string tok_embeddings, layer_prefix, attn_norm, wq, wk, wv, wo, ffn_norm, w_gate, w_up, w_down, out_norm,
        output;
};

// Finds a tensor by name; nullopt when the file has none of that name.
using TensorLookup = std::function<std::optional<TensorView>(const std::string& name)>;

// Fills model.weights from a checkpoint: every tensor must exist with its exact shape (FormatError
// naming it otherwise) and is aligned (aligned_view). Without an output head, or when `tied`, the
// embedding matrix doubles as the output head and config.tied_embeddings is set. Also sets
// config.weight_dtype (the dtype of layer 0's wq).
void gather_llama_weights(Model& model, const LlamaTensorNames& names, const TensorLookup& lookup, bool tied,
                          const std::string& source);

}  // namespace snapdoc
