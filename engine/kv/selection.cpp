#include "engine/kv/selection.h"

#include <algorithm>
#include <numeric>

#include "engine/common/error.h"
#include "engine/kv/pooling.h"

namespace snapdoc {

int64_t Selection::kept_entries() const {
    int64_t n = 0;
    for (const auto& layer : layers)
        for (const auto& h : layer) n += static_cast<int64_t>(h.kept.size()) + window;
    return n;
}

int64_t Selection::full_entries(int n_kv_heads) const {
    return static_cast<int64_t>(prompt_len) * static_cast<int64_t>(layers.size()) * n_kv_heads;
}

std::vector<int> layer_prefix_budgets(const SnapKvConfig& c, int n_layers, int n_prefix) {
    const int base = c.budget - c.window;
    std::vector<int> b(n_layers, base);
    if (c.policy == BudgetPolicy::Pyramid && n_layers > 1) {
        // PyramidKV: linear from max_num (first layer) down to min_num = base/beta (last layer), with
        // max_num = 2·base − min_num so the mean (and the total) equals the uniform budget.
        const double min_num = base / c.pyramid_beta;
        const double max_num = 2.0 * base - min_num;
        int64_t assigned = 0;
        for (int l = 0; l < n_layers; ++l) {
            b[l] = static_cast<int>(max_num - (max_num - min_num) * l / (n_layers - 1));
            assigned += b[l];
        }
        // Hand out what flooring lost, top layers first, so the total is exactly n_layers·base.
        for (int l = 0; assigned < static_cast<int64_t>(base) * n_layers; l = (l + 1) % n_layers) ++b[l], ++assigned;
    }
    for (int& x : b) x = std::clamp(x, 0, n_prefix);
    return b;
}

std::vector<int32_t> top_k_positions(const float* scores, int n, int k) {
    k = std::clamp(k, 0, n);
    std::vector<int32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    // Ties at the cut-off go to the lowest positions, so the choice is the same on every backend
    // (the device top-k, kernels/snapkv.h, does the same).
    if (k < n)
        std::nth_element(idx.begin(), idx.begin() + k, idx.end(), [scores](int32_t a, int32_t b) {
            return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
        });
    idx.resize(k);
    std::sort(idx.begin(), idx.end());
    return idx;
}

std::vector<std::vector<int32_t>> adaptive_split(const std::vector<const float*>& scores, int n_prefix, int64_t total,
                                                 int floor) {
    const int heads = static_cast<int>(scores.size());
    floor = std::clamp(floor, 0, n_prefix);
    total = std::clamp<int64_t>(total, static_cast<int64_t>(floor) * heads, static_cast<int64_t>(n_prefix) * heads);
    std::vector<std::vector<int32_t>> kept(heads);
    std::vector<char> taken(static_cast<std::size_t>(heads) * n_prefix, 0);
    for (int h = 0; h < heads; ++h) {
        kept[h] = top_k_positions(scores[h], n_prefix, floor);
        for (int32_t p : kept[h]) taken[static_cast<std::size_t>(h) * n_prefix + p] = 1;
    }
    // Global competition for the rest: candidates are (head, position) pairs not yet taken.
    const int64_t rest = total - static_cast<int64_t>(floor) * heads;
    std::vector<int64_t> cand;
    cand.reserve(static_cast<std::size_t>(heads) * n_prefix - static_cast<std::size_t>(floor) * heads);
    for (int64_t i = 0; i < static_cast<int64_t>(taken.size()); ++i)
        if (!taken[i]) cand.push_back(i);
    auto score_of = [&](int64_t i) { return scores[i / n_prefix][i % n_prefix]; };
    if (rest < static_cast<int64_t>(cand.size()))
        std::nth_element(cand.begin(), cand.begin() + rest, cand.end(),
                         [&](int64_t a, int64_t b) {
                             // Ties: the lowest (head, position) first, as on the device.
                             return score_of(a) > score_of(b) || (score_of(a) == score_of(b) && a < b);
                         });
    for (int64_t j = 0; j < rest; ++j) kept[cand[j] / n_prefix].push_back(static_cast<int32_t>(cand[j] % n_prefix));
    for (auto& k : kept) std::sort(k.begin(), k.end());
    return kept;
}

std::shared_ptr<Selection> begin_selection(const SnapKvConfig& config, const WindowScores& ws) {
    if (config.enabled) config.validate();
    if (ws.n_heads <= 0 || ws.n_kv_heads <= 0 || ws.n_heads % ws.n_kv_heads != 0)
        throw Error("window scores: bad head counts");
    auto sel = std::make_shared<Selection>();
    sel->config = config;
    sel->prompt_len = ws.prompt_len;
    sel->window = ws.window;
    const bool per_query = config.gqa == GqaMode::QueryHead;
    sel->cache_heads = per_query ? ws.n_heads : ws.n_kv_heads;
    sel->group = per_query ? 1 : ws.n_heads / ws.n_kv_heads;
    sel->compressed = config.enabled && ws.prompt_len > config.budget;
    sel->layers.resize(ws.n_layers);
    return sel;
}

void select_layer(const WindowScores& ws, int l, Selection& sel) {
    const SnapKvConfig& config = sel.config;
    const int n_prefix = ws.n_prefix();
    const int qgroup = ws.n_heads / ws.n_kv_heads;
    const bool per_query = config.gqa == GqaMode::QueryHead;
    auto& heads = sel.layers[l];
    heads.assign(sel.cache_heads, {});
    // Pool every query head, then (kv-head mode) average the pooled scores over each group.
    std::vector<float> pooled(n_prefix);
    for (auto& h : heads) h.pooled.assign(n_prefix, 0.0f);
    for (int h = 0; h < ws.n_heads; ++h) {
        pool_1d({ws.head(l, h), static_cast<std::size_t>(n_prefix)}, pooled, config.kernel, config.pooling);
        auto& dst = heads[per_query ? h : h / qgroup].pooled;
        for (int p = 0; p < n_prefix; ++p) dst[p] += pooled[p];
    }
    // The group's mean as its sum (in head order) divided once: only additions and one division,
    // which round the same with or without FMA contraction and on the device (kernels/snapkv.cu),
    // so both backends keep the same positions.
    if (!per_query && qgroup > 1)
        for (auto& h : heads)
            for (float& v : h.pooled) v /= static_cast<float>(qgroup);
    if (!sel.compressed) {
        for (auto& h : heads) {
            h.kept.resize(n_prefix);
            std::iota(h.kept.begin(), h.kept.end(), 0);
        }
        return;
    }
    if (config.policy == BudgetPolicy::Adaptive) {
        std::vector<const float*> s;
        for (auto& h : heads) s.push_back(h.pooled.data());
        const int base = config.budget - config.window;
        auto kept = adaptive_split(s, n_prefix, static_cast<int64_t>(base) * sel.cache_heads,
                                   static_cast<int>(config.adaptive_floor * base));
        for (int c = 0; c < sel.cache_heads; ++c) heads[c].kept = std::move(kept[c]);
    } else {
        const int budget = layer_prefix_budgets(config, ws.n_layers, n_prefix)[l];
        for (auto& h : heads) h.kept = top_k_positions(h.pooled.data(), n_prefix, budget);
    }
}

std::shared_ptr<const Selection> select_positions(const SnapKvConfig& config, const WindowScores& ws) {
    auto sel = begin_selection(config, ws);
    for (int l = 0; l < ws.n_layers; ++l) select_layer(ws, l, *sel);
    return sel;
}

}  // namespace snapdoc
