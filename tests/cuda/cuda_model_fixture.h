// Tiny random-weight models (tests/support/tiny_model.h) loaded for both backends, and the
// comparisons the backend tests share.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/kv/selection.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/generate.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc::cudatest {

struct LoadedTiny {
    testing::TempDir dir;
    testing::TinyWeights weights;
    std::unique_ptr<Model> model;
};

// Writes `spec` as a GGUF in `dtype` (or a Hugging Face folder when hf: rotate-half RoPE) and loads it.
std::unique_ptr<LoadedTiny> load_tiny(const testing::TinyModelSpec& spec, DType dtype, bool hf = false);

// The tiny GQA model the session, decode-step and K/V store tests share: 3 layers, 8 query heads
// over 2 KV heads (GQA 4, head_dim 8 like stories260K); other fields as TinyModelSpec's defaults.
testing::TinyModelSpec gqa4_tiny_spec(uint64_t seed);

using testing::random_ids;  // tests/support/token_ids.h

// Logits [n, vocab] of a token-major prefill from position 0 in chunks of `chunk` rows.
std::vector<float> prefill_logits(Backend& backend, const std::vector<int32_t>& ids, int chunk);

// Same kept positions per head, except where the reference's pooled score is within `tol` of its
// top-k cut-off (ties and near-ties may go either way); pooled scores agree within `tol`.
void expect_same_kept_ties_aside(const Selection& got, const Selection& want, double tol);

// Fraction of rows whose argmax agrees.
double argmax_agreement(const std::vector<float>& a, const std::vector<float>& b, int vocab);

// Rows of `got` whose argmax differs from `want`'s although `want`'s top choice leads the one `got`
// picked by more than `margin` (logit units): a real disagreement, not a near tie that f16 K/V
// rounding may flip. Returns how many rows differed at all (near ties included).
int expect_argmax_agrees_within_margin(const std::vector<float>& got, const std::vector<float>& want, int vocab,
                                       double margin);

// A greedy decoding with the logits of every step (GenerationRequest::on_logits).
struct Decoded {
    std::vector<int32_t> tokens;
    std::vector<std::vector<float>> logits;
};
GenerationRequest recording_greedy(int n, Decoded& into);

// Tolerance-based comparison of two greedy decodings of the same prompt: the tokens agree until
// the first step where they part, and that step must be a near tie in the reference (its margin
// between the two tokens at most `margin`); every step before it (same context on both sides) has
// logits within `nmse`. Returns the number of agreeing tokens.
int expect_greedy_agrees(const Decoded& got, const Decoded& want, double nmse, double margin);

}  // namespace snapdoc::cudatest
