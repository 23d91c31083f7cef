// A deliberately plain forward pass of the supported families for tests: double precision, the
// full T×T attention matrix, Hugging Face layout (rotate-half RoPE), q/k/v biases (Qwen2), per-head
// q/k RMS norms (Qwen3), and every rope scaling kind computed by its own formulas (HF
// modeling_rope_utils). It shares no code with the engine, so agreeing with it means the engine
// computes what the model defines.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tests/support/tiny_model.h"

namespace snapdoc::testing {

// Whether query head `head` of `layer` at position `query` may attend to key position `key`
// (on top of causality). Used to express "attend only to the kept positions".
using AttentionFilter = std::function<bool(int layer, int head, int query, int key)>;

// Optional output of reference_logits: the attention probabilities of every layer and query head,
// probs[layer][head][t * T + j] (0 for j > t or filtered keys).
struct ReferenceTrace {
    std::vector<std::vector<std::vector<double>>> probs;
};

// Whether query position `query` sees key position `key`'s K and V as stored in f16 (rounded to
// nearest even, 11 significant bits) rather than exact: how a session reads its f16 document store.
using StoredAsF16 = std::function<bool(int query, int key)>;

// Logits [T, vocab] for `ids` at positions 0..T-1. `context_size` (0 = the declared context) picks
// LongRoPE's factor set as llama.cpp does: long when it exceeds the original context.
std::vector<double> reference_logits(const TinyWeights& w, const std::vector<int32_t>& ids,
                                     const AttentionFilter& filter = {}, int context_size = 0,
                                     ReferenceTrace* trace = nullptr, const StoredAsF16& stored_as_f16 = {});

// The per-pair rotation frequencies and the cos/sin multiplier the reference uses.
struct ReferenceRope {
    std::vector<double> inv_freq;
    double attention_factor = 1.0;
};
ReferenceRope reference_rope(const TinyWeights& w, int context_size = 0);

}  // namespace snapdoc::testing
