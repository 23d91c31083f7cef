// Numbers the inspector derives from a selection snapshot: pure functions on engine values, no Qt,
// so they are unit-tested directly.
#pragma once

#include <cstdint>
#include <utility>
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

// Whether two configurations select the same way (every field that select_positions reads).
bool same_settings(const SnapKvConfig& a, const SnapKvConfig& b);

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

// Why one head kept what it kept, for the head detail. Uniform and pyramid: every kept position
// reached the head's own top-k threshold. Adaptive (AdaKV): each head first takes its top `floor`
// positions, then all heads of the layer compete for the rest with one shared threshold — so a
// head whose scores are all tiny (or 0) keeps just its floor, and its own smallest kept score says
// nothing about the rule; what explains it is the floor plus the layer's threshold.
struct KeepExplanation {
    bool compressed = false;
    bool adaptive = false;
    int kept = 0;
    // Uniform/pyramid: the head's top-k threshold. Adaptive: the layer's shared threshold (the
    // smallest score taken in the competition; -inf when nothing was).
    float threshold = 0;
    int floor = 0;              // adaptive: positions every head takes first
    int by_floor = 0;           // adaptive: kept positions that are this head's floor
    int by_threshold = 0;       // adaptive: kept positions won in the layer's competition
    float floor_threshold = 0;  // adaptive: the smallest score among this head's floor picks
    bool floor_ties = false;    // the floor was chosen among equal scores (e.g. all 0): by index
    float max_score = 0;        // the head's largest pooled score
};
KeepExplanation explain_head(const Selection& selection, int layer, int head);

// The range of the head detail's log-scale axis: four decades below the maximum, widened to show
// the thresholds and the smallest positive kept score, never more than twelve decades.
std::pair<double, double> detail_log_range(const KeepExplanation& e, const HeadSelection& head);

}  // namespace snapdoc::ui
