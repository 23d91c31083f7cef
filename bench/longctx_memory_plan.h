// The device memory a long prompt needs on the CUDA backend beyond the weights and the backend's own
// scratch, part by part, and from it the longest prompt that fits. The plan is the one-question
// path (prefill_compressed: only one layer's full K/V exists at a time, none is kept), which is what
// bounds the longest prompt; a document session also keeps the document's full K/V (the f16 store:
// on the device when it fits next to the model, else in host memory), reported beside it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/model/model_config.h"

namespace snapdoc::bench {

struct LongPromptPlan {
    int64_t activations_per_token = 0;  // f32 hidden states of every prompt token
    int64_t layer_kv_per_token = 0;     // one layer's f16 K/V + int32 position, every KV head
    int64_t scores_per_token = 0;       // one layer's window scores (f32 per query head)
    int64_t store_per_token = 0;        // a document's full K/V store (f16, every layer), not in the plan's sum
    int64_t reserve = 0;                // what the backend leaves free (CUDA context, cuBLAS workspaces)
    int64_t slack = 0;                  // scratch that grows with a call (window buffers, split-KV partials)
    int64_t per_token() const { return activations_per_token + layer_kv_per_token + scores_per_token; }
    int64_t bytes_for(int64_t tokens) const { return tokens * per_token() + slack; }
    // The most tokens whose bytes_for() plus the reserve fit `free_bytes` (0 when none).
    int64_t longest_prompt(int64_t free_bytes) const;
};

LongPromptPlan long_prompt_plan(const ModelConfig& config, int64_t free_bytes);

std::string bytes_text(int64_t bytes);  // "12.34 GiB", "56.7 MiB" below 1 GiB

}  // namespace snapdoc::bench
