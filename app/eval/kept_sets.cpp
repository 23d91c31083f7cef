#include "app/eval/kept_sets.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

#include "engine/common/error.h"

namespace snapdoc::eval {

DocKeep document_keep(const Selection& sel, int document_tokens, int n_layers, int cache_heads) {
    DocKeep out(static_cast<std::size_t>(n_layers), std::vector<std::vector<int32_t>>(static_cast<std::size_t>(cache_heads)));
    for (int l = 0; l < n_layers; ++l)
        for (int h = 0; h < cache_heads; ++h) {
            auto& v = out[l][h];
            if (!sel.compressed || sel.layers.empty()) {
                v.resize(static_cast<std::size_t>(document_tokens));
                std::iota(v.begin(), v.end(), 0);
                continue;
            }
            for (int32_t p : sel.layers[l][h].kept)
                if (p < document_tokens) v.push_back(p);
            for (int p = sel.prompt_len - sel.window; p < std::min(sel.prompt_len, document_tokens); ++p) v.push_back(p);
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        }
    return out;
}

std::shared_ptr<const Selection> selection_from_keep(const DocKeep& keep, const SnapKvConfig& config, int prompt_len,
                                                     int window, int group) {
    auto sel = std::make_shared<Selection>();
    sel->config = config;
    sel->prompt_len = prompt_len;
    sel->window = window;
    sel->compressed = true;
    sel->cache_heads = keep.empty() ? 0 : static_cast<int>(keep[0].size());
    sel->group = group;
    sel->layers.resize(keep.size());
    for (std::size_t l = 0; l < keep.size(); ++l) {
        sel->layers[l].resize(keep[l].size());
        for (std::size_t h = 0; h < keep[l].size(); ++h)
            for (int32_t p : keep[l][h])
                if (p < prompt_len - window) sel->layers[l][h].kept.push_back(p);
    }
    return sel;
}

double mean_jaccard(const DocKeep& a, const DocKeep& b) {
    if (a.size() != b.size()) throw Error("mean_jaccard: different layer counts");
    double sum = 0;
    int n = 0;
    std::vector<int32_t> tmp;
    for (std::size_t l = 0; l < a.size(); ++l) {
        if (a[l].size() != b[l].size()) throw Error("mean_jaccard: different head counts");
        for (std::size_t h = 0; h < a[l].size(); ++h) {
            tmp.clear();
            std::set_intersection(a[l][h].begin(), a[l][h].end(), b[l][h].begin(), b[l][h].end(), std::back_inserter(tmp));
            const double inter = static_cast<double>(tmp.size());
            const double uni = static_cast<double>(a[l][h].size() + b[l][h].size()) - inter;
            sum += uni > 0 ? inter / uni : 1.0;
            ++n;
        }
    }
    return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

double needle_recall(const DocKeep& keep, std::span<const int32_t> positions) {
    if (positions.empty()) return std::numeric_limits<double>::quiet_NaN();
    int all = 0, n = 0;
    for (const auto& layer : keep)
        for (const auto& head : layer) {
            ++n;
            all += std::all_of(positions.begin(), positions.end(),
                               [&](int32_t p) { return std::binary_search(head.begin(), head.end(), p); });
        }
    return n ? static_cast<double>(all) / n : std::numeric_limits<double>::quiet_NaN();
}

std::vector<int32_t> find_tokens(std::span<const int32_t> ids, std::span<const int32_t> needle) {
    if (needle.empty() || needle.size() > ids.size()) return {};
    const auto it = std::search(ids.begin(), ids.end(), needle.begin(), needle.end());
    if (it == ids.end()) return {};
    std::vector<int32_t> pos(needle.size());
    std::iota(pos.begin(), pos.end(), static_cast<int32_t>(it - ids.begin()));
    return pos;
}

}  // namespace snapdoc::eval
