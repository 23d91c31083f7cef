// Checks shared by the GGUF and Hugging Face loaders: every weight's exact shape against the
// config and the family's description (architecture.h), and natural alignment of its data (a
// misaligned tensor is copied into an owned buffer so the backend can read it as float / uint16
// without undefined behaviour).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/architecture.h"
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
    std::vector<int64_t> tok_embeddings, norm, wq, wk, wv, bq, bkv, head_norm, wqkv, wo, w_gate, w_up, w_gate_up,
        w_down, output;
};
ExpectedShapes expected_shapes(const ModelConfig& c);

// Rows [row0, row0 + rows) of a 2-D tensor as a view into the same bytes (rows are contiguous in
// every dtype), named `name` for messages.
TensorView row_slice(const TensorView& v, int64_t row0, int64_t rows, std::string name);

// Finds a tensor by name; nullopt when the file has none of that name.
using TensorLookup = std::function<std::optional<TensorView>(const std::string& name)>;

// Fills model.weights from a checkpoint whose tensors are named by `names`, with the optional parts
// (biases, q/k norms) and fusions `arch` declares: every tensor must exist with its exact shape
// (FormatError naming it otherwise) and is aligned (aligned_view); fused tensors are split into row
// slices. Without an output head, or when `tied`, the embedding matrix doubles as the output head
// and config.tied_embeddings is set. Also sets config.weight_dtype (the dtype of layer 0's wq).
void gather_weights(Model& model, const Architecture& arch, const TensorNames& names, const TensorLookup& lookup,
                    bool tied, const std::string& source);

// Logs a warning naming the tensors of a file that the model does not use (a sign that a family
// is described incompletely: such a file would run without part of its weights).
void warn_unused_tensors(const std::string& source, const std::vector<std::string>& file_tensors,
                         const std::vector<std::string>& used);

}  // namespace snapdoc
