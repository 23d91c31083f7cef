// Human-facing facts about a model (CLI `info`, the app's model dialog and model line): shapes,
// parameter count, the tensor type mix and the memory a run needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/model.h"

namespace snapdoc {

// The weight tensors of one storage type (a Q4_K_M file: mostly Q4_K, a few Q6_K, F32 norms).
struct TensorTypeShare {
    DType dtype = DType::F32;
    int tensors = 0;         // tensors of the file (a fused tensor, e.g. Phi-3's attn_qkv, counts once)
    int64_t parameters = 0;  // values
    int64_t bytes = 0;       // as stored
    double bits_per_weight() const {
        return parameters > 0 ? 8.0 * static_cast<double>(bytes) / parameters : 0.0;
    }
};

struct ModelSummary {
    int64_t parameters = 0;
    int64_t weight_bytes = 0;               // as stored (mmapped; paged in on use)
    int64_t kv_bytes_per_token = 0;         // K+V over all layers in an uncompressed backend cache (f16 by default)
    int64_t kv_store_bytes_per_token = 0;   // f16 K+V over all layers (the document's full-KV store)
    int64_t scratch_bytes_per_row = 0;      // activations per prefill row on the CPU backend
    std::vector<TensorTypeShare> type_mix;  // largest share (bytes) first
};

ModelSummary summarize(const Model& model);

// The per-token and per-row sizes above from the shape alone, for models not downloaded yet
// (the hub catalogue's fit estimate); summarize() uses the same functions.
int64_t kv_bytes_per_token(const ModelConfig& c);        // backend cache K+V over all layers (kKvCacheValueBytes)
int64_t kv_store_bytes_per_token(const ModelConfig& c);  // f16 K+V over all layers
int64_t scratch_bytes_per_row(const ModelConfig& c);     // CPU backend activations per prefill row
// One prefill chunk's activations plus one row of logits.
int64_t prefill_scratch_bytes(const ModelConfig& c, int chunk_rows = 512);

// "Q4_K 12 tensors 20.3 MiB (4.5 bpw), Q6_K 3 tensors 15.2 MiB (6.6 bpw), F32 6 tensors 4.8 KiB".
std::string format_type_mix(const std::vector<TensorTypeShare>& mix);
// The short form for one line: "Q4_K×12 Q6_K×3 F32×6".
std::string format_type_mix_short(const std::vector<TensorTypeShare>& mix);

// What a document session needs, by part (CPU backend, its default f16 KV cache).
struct MemoryPlan {
    int64_t weights = 0;                   // as stored, memory-mapped
    int64_t kv_full_per_1k = 0;            // uncompressed K+V per 1024 prompt tokens (the f16 full-KV store)
    int snapkv_budget = 0;                 // B, kept entries per head per layer (window included)
    int64_t kv_at_budget = 0;              // the compressed cache at that budget (kv-head mode), any length
    int64_t kv_at_budget_query_heads = 0;  // the same in query-head mode (× query heads per KV head)
    int prefill_chunk_rows = 0;
    int64_t scratch = 0;  // activations for one prefill chunk + one row of logits
};
MemoryPlan plan_memory(const Model& model, int snapkv_budget = 1024, int chunk_rows = 512);

// Estimated resident memory to run `tokens` tokens with an uncompressed cache and prefill chunks of
// `chunk_rows`: weights + KV + activations.
int64_t estimate_run_bytes(const Model& model, int64_t tokens, int chunk_rows = 512);

// "12.3 MiB"-style rendering.
std::string format_bytes(int64_t bytes);

}  // namespace snapdoc
