// Checks shared by the GGUF and Hugging Face loaders: every weight's exact shape against the
// config, and natural alignment of its data (a misaligned tensor is copied into an owned buffer so
// the backend can read it as float / uint16 without undefined behaviour).
#pragma once

#include <cstdint>
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

}  // namespace snapdoc
