#include "ui/inspector/selection_analysis.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/kv/kv_cache.h"

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
    return int64_t{2} * prompt_len * shape.n_layers * shape.n_kv_heads * shape.head_dim * kKvCacheValueBytes;
}

int64_t estimate_kv_bytes(const CacheShape& shape, const SnapKvConfig& config, int prompt_len) {
    if (!config.enabled || prompt_len <= config.budget) return full_kv_bytes(shape, prompt_len);
    const int cache_heads = config.gqa == GqaMode::QueryHead ? shape.n_heads : shape.n_kv_heads;
    // Every policy keeps the same total (pyramid and adaptive only move it between layers/heads).
    const int64_t entries = static_cast<int64_t>(config.budget) * shape.n_layers * cache_heads;
    return entries * shape.head_dim * 2 * kKvCacheValueBytes;
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

namespace snapdoc::ui {

KeepExplanation explain_head(const Selection& s, int layer, int head) {
    KeepExplanation e;
    if (layer < 0 || layer >= static_cast<int>(s.layers.size()) || head < 0 ||
        head >= static_cast<int>(s.layers[layer].size()))
        return e;
    const auto& heads = s.layers[layer];
    const HeadSelection& h = heads[head];
    e.compressed = s.compressed;
    e.kept = static_cast<int>(h.kept.size());
    for (float v : h.pooled) e.max_score = std::max(e.max_score, v);
    e.adaptive = s.compressed && s.config.policy == BudgetPolicy::Adaptive;
    if (!e.adaptive) {
        e.threshold = keep_threshold(h, s.compressed);
        return e;
    }
    // As select_layer: floor = alpha·(B − W), clamped to the prefix.
    const int base = s.config.budget - s.config.window;
    e.floor = std::clamp(static_cast<int>(s.config.adaptive_floor * base), 0, std::max(0, s.n_prefix()));
    auto kept_scores_desc = [](const HeadSelection& hs) {
        std::vector<float> v;
        v.reserve(hs.kept.size());
        for (int32_t p : hs.kept)
            if (p >= 0 && static_cast<std::size_t>(p) < hs.pooled.size()) v.push_back(hs.pooled[p]);
        std::sort(v.begin(), v.end(), std::greater<>());
        return v;
    };
    // A head's floor picks are its `floor` highest scores, all kept; so among its kept scores the
    // top `floor` are the floor and the rest were won in the competition.
    e.threshold = std::numeric_limits<float>::infinity();
    bool any_won = false;
    for (const auto& hs : heads) {
        const auto v = kept_scores_desc(hs);
        for (std::size_t i = e.floor; i < v.size(); ++i) {
            e.threshold = std::min(e.threshold, v[i]);
            any_won = true;
        }
    }
    if (!any_won) e.threshold = -std::numeric_limits<float>::infinity();
    const auto mine = kept_scores_desc(h);
    e.by_floor = std::min<int>(e.floor, static_cast<int>(mine.size()));
    e.by_threshold = static_cast<int>(mine.size()) - e.by_floor;
    if (e.by_floor > 0) {
        e.floor_threshold = mine[e.by_floor - 1];
        // Ties: a dropped position scores as high as the smallest floor pick.
        std::vector<char> kept(h.pooled.size(), 0);
        for (int32_t p : h.kept)
            if (p >= 0 && static_cast<std::size_t>(p) < kept.size()) kept[p] = 1;
        for (std::size_t p = 0; p < h.pooled.size() && !e.floor_ties; ++p)
            e.floor_ties = !kept[p] && h.pooled[p] >= e.floor_threshold;
    }
    return e;
}

std::pair<double, double> detail_log_range(const KeepExplanation& e, const HeadSelection& head) {
    const double hi = e.max_score > 0 ? std::log10(e.max_score) : 0.0;
    double lo = hi - 4;
    auto widen = [&](double v) {
        if (v > 0 && std::isfinite(v)) lo = std::min(lo, std::log10(v) - 0.3);
    };
    widen(e.threshold);
    if (e.adaptive) widen(e.floor_threshold);
    float smallest = std::numeric_limits<float>::infinity();
    for (int32_t p : head.kept)
        if (p >= 0 && static_cast<std::size_t>(p) < head.pooled.size() && head.pooled[p] > 0)
            smallest = std::min(smallest, head.pooled[p]);
    widen(smallest);
    lo = std::max(lo, hi - 12);
    return {lo, hi};
}

}  // namespace snapdoc::ui

namespace snapdoc::ui {

bool same_settings(const SnapKvConfig& a, const SnapKvConfig& b) {
    return a.enabled == b.enabled && a.budget == b.budget && a.window == b.window && a.kernel == b.kernel &&
           a.pooling == b.pooling && a.gqa == b.gqa && a.policy == b.policy && a.pyramid_beta == b.pyramid_beta &&
           a.adaptive_floor == b.adaptive_floor;
}

}  // namespace snapdoc::ui
