#include "ui/inspector/selection_analysis.h"

#include <algorithm>
#include <limits>

namespace snapdoc::ui {

double kept_fraction(const Selection& s) {
    const int64_t full = static_cast<int64_t>(s.prompt_len) * strip_count(s);
    return full > 0 ? static_cast<double>(s.kept_entries()) / static_cast<double>(full) : 1.0;
}

std::vector<uint16_t> kept_head_counts(const Selection& s) {
    std::vector<uint16_t> counts(std::max(0, s.prompt_len), 0);
    const int n_prefix = s.n_prefix();
    for (const auto& layer : s.layers)
        for (const auto& head : layer)
            for (int32_t p : head.kept)
                if (p >= 0 && p < n_prefix) ++counts[p];
    const auto all = static_cast<uint16_t>(std::min(strip_count(s), 65535));
    for (int p = std::max(0, n_prefix); p < s.prompt_len; ++p) counts[p] = all;
    return counts;
}

double kept_overlap(const Selection& previous, const Selection& current, int document_tokens) {
    if (previous.layers.size() != current.layers.size() || previous.cache_heads != current.cache_heads)
        return -1.0;
    int64_t kept = 0, both = 0;
    std::vector<char> mark;
    for (std::size_t l = 0; l < current.layers.size(); ++l)
        for (int c = 0; c < current.cache_heads; ++c) {
            const auto& prev = previous.layers[l][c].kept;
            const auto& cur = current.layers[l][c].kept;
            mark.assign(std::max(0, document_tokens), 0);
            for (int32_t p : prev)
                if (p < document_tokens) mark[p] = 1;
            for (int32_t p : cur) {
                if (p >= document_tokens) continue;
                ++kept;
                both += mark[p];
            }
        }
    return kept > 0 ? static_cast<double>(both) / static_cast<double>(kept) : 1.0;
}

int64_t full_kv_bytes(const CacheShape& shape, int prompt_len) {
    return int64_t{2} * prompt_len * shape.n_layers * shape.n_kv_heads * shape.head_dim *
           static_cast<int64_t>(sizeof(float));
}

int64_t estimate_kv_bytes(const CacheShape& shape, const SnapKvConfig& config, int prompt_len) {
    if (!config.enabled || prompt_len <= config.budget) return full_kv_bytes(shape, prompt_len);
    const int cache_heads = config.gqa == GqaMode::QueryHead ? shape.n_heads : shape.n_kv_heads;
    // Every policy keeps the same total (pyramid and adaptive only move it between layers/heads).
    const int64_t entries = static_cast<int64_t>(config.budget) * shape.n_layers * cache_heads;
    return entries * shape.head_dim * 2 * static_cast<int64_t>(sizeof(float));
}

float keep_threshold(const HeadSelection& head, bool compressed) {
    float t = -std::numeric_limits<float>::infinity();
    if (!compressed || head.kept.empty()) return t;
    t = std::numeric_limits<float>::infinity();
    for (int32_t p : head.kept)
        if (p >= 0 && static_cast<std::size_t>(p) < head.pooled.size()) t = std::min(t, head.pooled[p]);
    return t;
}

}  // namespace snapdoc::ui
