// Human-facing facts about a model (CLI `info`, the app's model panel): shapes, parameter count,
// dtype and the memory a run needs.
#pragma once

#include <cstdint>
#include <string>

#include "engine/model/model.h"

namespace snapdoc {

struct ModelSummary {
    int64_t parameters = 0;
    int64_t weight_bytes = 0;           // as stored (mmapped; paged in on use)
    int64_t kv_bytes_per_token = 0;     // f32 K+V over all layers (uncompressed)
    int64_t scratch_bytes_per_row = 0;  // activations per prefill row on the CPU backend
};

ModelSummary summarize(const Model& model);

// Estimated resident memory to run `tokens` tokens with an uncompressed cache and prefill chunks of
// `chunk_rows`: weights + KV + activations.
int64_t estimate_run_bytes(const Model& model, int64_t tokens, int chunk_rows = 512);

// "12.3 MiB"-style rendering.
std::string format_bytes(int64_t bytes);

}  // namespace snapdoc
