// SnapKV for a single question, keeping nothing else: the whole prompt (document + question) goes
// through the model layer by layer; as soon as layer ℓ is done, its window scores choose what each
// head keeps, those entries are copied out, and the layer's full K/V is freed. Peak memory is one
// layer's full K/V + activations + the compressed cache — the memory plan for prompts whose full
// KV would not fit anywhere. (DocumentSession keeps the full K/V instead, to re-snap later questions.)
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/kv/selection.h"
#include "engine/runtime/backend.h"

namespace snapdoc {

struct CompressedPrompt {
    std::unique_ptr<KvCache> cache;  // kept positions + window per (layer, cache head), + spare room
    std::shared_ptr<const Selection> selection;
    std::vector<float> last_logits;  // logits of the prompt's last token
};

CompressedPrompt prefill_compressed(Backend& backend, std::span<const int32_t> prompt, const SnapKvConfig& config,
                                    int spare_tokens, int chunk_rows = 512, const std::atomic<bool>* cancel = nullptr);

}  // namespace snapdoc
