#include "ui/worker/held_reselect.h"

#include <QCoreApplication>
#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/kv/selection.h"

namespace snapdoc::ui {

namespace {

// As DocumentSession::select_keeping_history does it: SnapKV over [0, P) as if the prompt ended
// there with the same window, then every position of [P, L − W) (the recent turns) kept as well.
std::shared_ptr<const Selection> select_keeping(const SnapKvConfig& config, const WindowScores& ws, int keep_from) {
    const int L = ws.prompt_len, W = ws.window, P = keep_from, n_prefix = L - W;
    if (!config.enabled || P < 0 || P >= n_prefix) return select_positions(config, ws);
    WindowScores part;
    part.prompt_len = P + W;
    part.window = W;
    part.n_layers = ws.n_layers;
    part.n_heads = ws.n_heads;
    part.n_kv_heads = ws.n_kv_heads;
    part.layers.resize(ws.n_layers);
    for (int l = 0; l < ws.n_layers; ++l) {
        part.layers[l].resize(static_cast<std::size_t>(ws.n_heads) * P);
        for (int h = 0; h < ws.n_heads; ++h)
            std::copy_n(ws.head(l, h), P, part.layers[l].data() + static_cast<std::size_t>(h) * P);
    }
    auto sel = std::const_pointer_cast<Selection>(select_positions(config, part));
    for (auto& layer : sel->layers)
        for (auto& head : layer) {
            const float top = head.pooled.empty() ? 0.0f : *std::max_element(head.pooled.begin(), head.pooled.end());
            head.pooled.resize(n_prefix, top);
            for (int p = P; p < n_prefix; ++p) head.kept.push_back(p);
        }
    sel->prompt_len = L;
    sel->window = W;
    return sel;
}

}  // namespace

SelectionSnapshot reselect_held(const SelectionSnapshot& base, const SnapKvConfig& config) {
    if (!base.valid() || !base.scores)
        throw Error(QCoreApplication::translate("snapdoc", "The scores of this question are not held any more: "
                                                           "ask it again to change its selection.")
                        .toStdString());
    const WindowScores& ws = *base.scores;
    if (ws.window != std::min(config.window, ws.prompt_len))
        throw Error(QCoreApplication::translate(
                        "snapdoc",
                        "This question was scored with a %1-token window; a %2-token window needs its queries, "
                        "which only the last question asked keeps. Ask it again to use this window.")
                        .arg(ws.window)
                        .arg(config.window)
                        .toStdString());
    const auto t0 = std::chrono::steady_clock::now();
    SelectionSnapshot snap = base;
    snap.selection = select_keeping(config, ws, base.keep_whole_from);
    snap.select_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // As DocumentSession::compressed_bytes counts it: K and V, f32, per kept entry.
    snap.kv_bytes_compressed = snap.selection->kept_entries() * base.head_dim * 2 * static_cast<int64_t>(sizeof(float));
    snap.answer_attention.reset();  // a re-selection is not an answer
    return snap;
}

}  // namespace snapdoc::ui
