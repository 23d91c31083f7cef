// Re-selecting an earlier question (another conversation's) at new settings from the window scores
// its snapshot holds: the budget slider follows the conversation on screen, not the engine's last
// question (issue 23). Pure; the worker runs it so replies keep their order with engine reselects.
#pragma once

#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

// A selection of `base`'s question at `config`, from the window scores it holds (no forward pass,
// no engine state: it works for any conversation's question). Throws snapdoc::Error when it cannot
// be made: no scores held, or a window other than the one the question was scored with (re-scoring
// needs that question's queries, which only the engine's last question keeps).
SelectionSnapshot reselect_held(const SelectionSnapshot& base, const SnapKvConfig& config);

}  // namespace snapdoc::ui
