// Token-major prefill over a full KV cache: every layer runs on one chunk of the prompt before the
// next chunk starts, so activations stay bounded by the chunk size. (The SnapKV document path uses
// a layer-major order instead; see the kv/ and session/ modules.)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/runtime/backend.h"

namespace snapdoc {

struct PrefillOptions {
    int chunk_rows = 512;
    const std::atomic<bool>* cancel = nullptr;          // checked between chunks; throws Cancelled
    std::function<void(int done, int total)> progress;  // called after each chunk
    // With all_logits: only these positions (0-based in `tokens`, in this order), so a caller that
    // needs a few rows of a long prompt does not compute and hold [n, vocab] (`eval --positions`).
    std::vector<int> logits_positions;
};

// Runs `tokens` at positions [start_pos, start_pos + n) through the model, appending their K/V to
// `kv`. Returns the logits of the last token. If `all_logits` is given it receives [n, vocab], or
// [logits_positions.size(), vocab] when options.logits_positions is set.
std::vector<float> prefill(Backend& backend, std::span<const int32_t> tokens, int start_pos, KvCache& kv,
                           const PrefillOptions& options = {}, std::vector<float>* all_logits = nullptr);

// A full (uncompressed) cache with one segment per KV head, sized for `max_tokens`.
std::unique_ptr<KvCache> make_full_kv_cache(Backend& backend, int max_tokens);

// A cache shaped like the model's with room for `max_tokens` only in `layer` (the other layers
// cost nothing): what layer-major prefill holds while one layer runs.
std::unique_ptr<KvCache> make_layer_kv_cache(Backend& backend, int layer, int max_tokens);

}  // namespace snapdoc
