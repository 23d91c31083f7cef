// Which passages stand out from the diffuse background of an answer's attention (issue 23, item
// 10). A fixed top-k showed one or two unrelated passages at ~1% next to every demo answer's real
// source. The rule is relative to the distribution: a passage counts when its peak (smoothed)
// attention is at least `min_lift` times the document's mean per-token attention. When none does
// (attention flat over the document), only the strongest passage is shown, marked weak.
//
// Measured on the demo model (8 sample questions, full KV and SnapKV at 128): the needle's passage
// has lift 20.7-25.9; passages that come back for every question whatever it asks (the model's
// habitual places, e.g. tokens 1513-1528 at lift ~15.5, 85-95 at ~9.0) sit below. So besides the
// background rule a passage must reach `min_share_of_top` of the strongest passage's lift; at 0.8
// the demo shows only the needle (the margin is thin: 15.6 against a cut of 16.6).
#pragma once

#include <vector>

#include "engine/session/citations.h"

namespace snapdoc {

// `ranked`: find_citations' passages, strongest first, each with its lift set. Keeps those with
// lift >= max(min_lift, min_share_of_top × the strongest lift), or the first alone (weak = true)
// when none reaches min_lift. min_lift <= 0 keeps all.
std::vector<Citation> salient_citations(std::vector<Citation> ranked, double min_lift, double min_share_of_top = 0.8);

}  // namespace snapdoc
