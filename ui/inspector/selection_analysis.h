// Numbers the inspector derives from a selection snapshot: pure functions on engine values, no Qt,
// so they are unit-tested directly.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/kv/selection.h"

namespace snapdoc::ui {

// Fraction of the uncompressed cache's entries the selection keeps (1 when not compressed).
double kept_fraction(const Selection& selection);

// For each prompt position [0, prompt_len): how many (layer, cache head) strips keep it. Window
// positions are kept by all of them.
std::vector<uint16_t> kept_head_counts(const Selection& selection);
inline int strip_count(const Selection& s) {
    return static_cast<int>(s.layers.size()) * s.cache_heads;
}

// Question stability: of the document positions [0, document_tokens) that `current` keeps, the
// fraction that `previous` kept too, summed over all strips. Returns a negative value when the two
// selections have different shapes (another model or GQA mode) and cannot be compared.
double kept_overlap(const Selection& previous, const Selection& current, int document_tokens);

struct CacheShape {
    int n_layers = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
};
// Bytes of the cache that `config` would keep for a `prompt_len`-token prompt (f32 K and V), as the
// engine's DocumentSession::compressed_bytes would count them, before any selection is made: the
// readout next to the budget slider.
int64_t estimate_kv_bytes(const CacheShape& shape, const SnapKvConfig& config, int prompt_len);
int64_t full_kv_bytes(const CacheShape& shape, int prompt_len);

// The score a position needed to be kept in one head: the smallest pooled score among its kept
// positions (the top-k threshold); -inf when it keeps nothing, and for an uncompressed selection.
float keep_threshold(const HeadSelection& head, bool compressed);

}  // namespace snapdoc::ui
