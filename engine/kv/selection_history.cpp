#include "engine/kv/selection_history.h"

#include <algorithm>

namespace snapdoc {

std::shared_ptr<const Selection> select_keeping_whole_from(const SnapKvConfig& config, const WindowScores& scores,
                                                           int keep_whole_from, const SelectLayerFn& select_layer_fn) {
    const int L = scores.prompt_len, W = scores.window, P = keep_whole_from, n_prefix = L - W;
    if (!config.enabled || P < 0 || P >= n_prefix) {
        auto sel = begin_selection(config, scores);
        for (int l = 0; l < scores.n_layers; ++l) select_layer_fn(scores, l, *sel);
        return sel;
    }
    WindowScores part;
    part.prompt_len = P + W;
    part.window = W;
    part.n_layers = scores.n_layers;
    part.n_heads = scores.n_heads;
    part.n_kv_heads = scores.n_kv_heads;
    part.layers.resize(part.n_layers);
    auto sel = begin_selection(config, part);
    for (int l = 0; l < part.n_layers; ++l) {
        auto& dst = part.layers[l];
        dst.resize(static_cast<std::size_t>(part.n_heads) * P);
        for (int h = 0; h < part.n_heads; ++h)
            std::copy_n(scores.head(l, h), P, dst.data() + static_cast<std::size_t>(h) * P);
        select_layer_fn(part, l, *sel);
        std::vector<float>().swap(dst);
        for (auto& head : sel->layers[l]) {
            const float top = head.pooled.empty() ? 0.0f : *std::max_element(head.pooled.begin(), head.pooled.end());
            head.pooled.resize(n_prefix, top);
            for (int p = P; p < n_prefix; ++p) head.kept.push_back(p);
        }
    }
    sel->prompt_len = L;
    sel->window = W;
    return sel;
}

}  // namespace snapdoc
