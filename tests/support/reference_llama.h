// A deliberately plain Llama forward pass for tests: double precision, the full T×T attention
// matrix, Hugging Face layout (rotate-half RoPE). It shares no code with the engine, so agreeing
// with it means the engine computes what the model defines.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tests/support/tiny_model.h"

namespace snapdoc::testing {

// Whether query head `head` of `layer` at position `query` may attend to key position `key`
// (on top of causality). Used to express "attend only to the kept positions".
using AttentionFilter = std::function<bool(int layer, int head, int query, int key)>;

// Logits [T, vocab] for `ids` at positions 0..T-1.
std::vector<double> reference_logits(const TinyWeights& w, const std::vector<int32_t>& ids,
                                     const AttentionFilter& filter = {});

}  // namespace snapdoc::testing
