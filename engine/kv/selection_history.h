// SnapKV for a conversation: the document and the older turns are compressed, the recent turns are
// kept whole. One pure function for the engine's answer path and the app's held re-selection, so a
// slider moved after an answer keeps exactly the positions the answer would have kept.
#pragma once

#include <functional>
#include <memory>

#include "engine/kv/selection.h"

namespace snapdoc {

// Fills layer `layer` of `selection` from `scores` (select_layer, or a backend's version of it).
using SelectLayerFn = std::function<void(const WindowScores& scores, int layer, Selection& selection)>;

// SnapKV over [0, keep_whole_from) as if the prompt ended there with the same window, then every
// position of [keep_whole_from, L − W) kept as well, like the window (ranked at the head's best
// pooled score, for displays). Outside 0 <= keep_whole_from < L − W, or with SnapKV disabled, it is
// the plain selection. Built one layer at a time, so only one layer's scores are copied at once.
std::shared_ptr<const Selection> select_keeping_whole_from(const SnapKvConfig& config, const WindowScores& scores,
                                                           int keep_whole_from,
                                                           const SelectLayerFn& select_layer_fn = select_layer);

}  // namespace snapdoc
