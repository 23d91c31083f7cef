// SnapKV selection: from the window scores of a prompt to the positions each head keeps.
// This is pure computation on host arrays (no backend): changing the budget, kernel, pooling, GQA
// mode or policy re-runs only this, never a forward pass.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/kv/snapkv_config.h"

namespace snapdoc {

// For every layer and query head: Σ over the W window queries of their softmax attention to each
// prefix position [0, L − W) (the softmax runs over all prompt keys, causal inside the window).
struct WindowScores {
    int prompt_len = 0;  // L
    int window = 0;      // W in effect: min(requested W, L)
    int n_layers = 0;
    int n_heads = 0;     // query heads
    int n_kv_heads = 0;
    std::vector<std::vector<float>> layers;  // [layer][head * n_prefix() + position]

    int n_prefix() const { return prompt_len - window; }
    const float* head(int layer, int h) const {
        return layers[layer].data() + static_cast<int64_t>(h) * n_prefix();
    }
};

struct HeadSelection {
    std::vector<int32_t> kept;  // kept prefix positions, ascending (the window is always kept too)
    std::vector<float> pooled;  // pooled score per prefix position (what the top-k ranked)
};

struct Selection {
    SnapKvConfig config;
    int prompt_len = 0;
    int window = 0;
    bool compressed = false;  // false: every position kept (disabled, or prompt within budget)
    int cache_heads = 0;      // KV heads (kv-head mode) or query heads (query-head mode)
    int group = 1;            // query heads per cache head
    std::vector<std::vector<HeadSelection>> layers;  // [layer][cache head]

    int n_prefix() const { return prompt_len - window; }
    // Entries the compressed cache stores (kept prefix positions + window, all layers and heads).
    int64_t kept_entries() const;
    // Entries of the uncompressed cache (L per KV head per layer).
    int64_t full_entries(int n_kv_heads) const;
};

// Kept prefix positions per layer (window excluded) for the uniform and pyramid policies.
std::vector<int> layer_prefix_budgets(const SnapKvConfig& config, int n_layers, int n_prefix);

// Splits `total` kept positions among heads: each head first takes its top `floor` positions, then a
// global top-k over all heads' remaining scores hands out the rest (AdaKV). Returns per-head kept
// positions (ascending). `scores[h]` has n_prefix entries.
std::vector<std::vector<int32_t>> adaptive_split(const std::vector<const float*>& scores, int n_prefix, int64_t total,
                                                 int floor);

// Indices of the k largest values (any valid choice on ties), ascending.
std::vector<int32_t> top_k_positions(const float* scores, int n, int k);

std::shared_ptr<const Selection> select_positions(const SnapKvConfig& config, const WindowScores& scores);

// The same one layer at a time (for a prefill that selects as soon as a layer is done): an empty
// selection shaped for `scores`, then select_layer fills layer l from scores.layers[l].
std::shared_ptr<Selection> begin_selection(const SnapKvConfig& config, const WindowScores& scores);
void select_layer(const WindowScores& scores, int layer, Selection& selection);

}  // namespace snapdoc
