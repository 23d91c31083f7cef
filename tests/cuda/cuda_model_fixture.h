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

using testing::random_ids;  // tests/support/token_ids.h

// Logits [n, vocab] of a token-major prefill from position 0 in chunks of `chunk` rows.
std::vector<float> prefill_logits(Backend& backend, const std::vector<int32_t>& ids, int chunk);

// Same kept positions per head, except where the reference's pooled score is within `tol` of its
// top-k cut-off (ties and near-ties may go either way); pooled scores agree within `tol`.
void expect_same_kept_ties_aside(const Selection& got, const Selection& want, double tol);

// Fraction of rows whose argmax agrees.
double argmax_agreement(const std::vector<float>& a, const std::vector<float>& b, int vocab);

}  // namespace snapdoc::cudatest
