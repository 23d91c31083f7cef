// The CLI's "know before you wait" line (issue 15): before a long document prefill, a short probe
// on this machine predicts its time and stderr says so, e.g.
//   prefilling 100,148 tokens: about 1 min 40 s on this machine (probe 0.31 s)
// Short documents get no probe and no line (their prefill takes seconds).
#pragma once

#include <cstdint>
#include <span>

#include "engine/runtime/backend.h"
#include "engine/session/prefill_estimate.h"

namespace snapdoc::cli {

PrefillEstimate announce_prefill(Backend& backend, std::span<const int32_t> tokens);

}  // namespace snapdoc::cli
