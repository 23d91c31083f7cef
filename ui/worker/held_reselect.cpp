#include "ui/worker/held_reselect.h"

#include <QCoreApplication>
#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/kv/kv_cache.h"
#include "engine/kv/selection_history.h"

namespace snapdoc::ui {

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
    snap.selection = select_keeping_whole_from(config, ws, base.keep_whole_from);
    snap.select_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // As DocumentSession::compressed_bytes counts it: K and V per kept entry, in the app's backends'
    // cache type (f16: the CPU's default, the GPU's only one).
    snap.kv_bytes_compressed = snap.selection->kept_entries() * base.head_dim * 2 * kKvCacheValueBytes;
    snap.answer_attention.reset();  // a re-selection is not an answer
    return snap;
}

}  // namespace snapdoc::ui
