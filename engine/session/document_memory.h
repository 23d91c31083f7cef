// The memory a document session (document_session.h) holds at its peak, from the model's shape
// alone: used before a model is downloaded (the hub catalogue's fit estimate) as well as for a
// loaded one. The per-token sizes come from model_summary.h.
#pragma once

#include <cstdint>

#include "engine/model/model_config.h"

namespace snapdoc {

struct DocumentMemory {
    int64_t weights = 0;        // as stored
    int64_t full_kv_store = 0;  // f16 K/V of every layer (FullKvStore: host RAM, or a mapped spill file)
    int64_t hidden_states = 0;  // f32 [tokens, dim]: layer-major prefill keeps every row between layers
    int64_t layer_kv = 0;       // f32 K/V of the layer being prefilled (the backend's cache)
    int64_t compressed_kv = 0;  // f32 cache at the budget (kv-head mode) the answer decodes on
    int64_t scratch = 0;        // one prefill chunk, the logits row, the window queries kept per layer
    int64_t total() const { return weights + full_kv_store + hidden_states + layer_kv + compressed_kv + scratch; }
    // A GPU backend keeps the store on the host when the device has no room for it; the rest is
    // on the device.
    int64_t without_store() const { return total() - full_kv_store; }
};

// A document of `tokens` prefilled layer-major in chunks of `chunk_rows`, answered from a
// compressed cache of `snapkv_budget` entries per head (DocumentSessionOptions' defaults).
DocumentMemory plan_document_memory(const ModelConfig& c, int64_t weight_bytes, int64_t tokens, int snapkv_budget,
                                    int chunk_rows = 512);

}  // namespace snapdoc
