// Layout checks for the real main window at a given size: which controls a user could not reach
// (clipped by a parent that does not scroll there, or squeezed below their own minimum size).
#pragma once

#include <QStringList>
#include <QWidget>

namespace snapdoc::test {

// Every shown control of `root` (buttons, spin boxes, combos, sliders, line edits, lists, text
// views, progress bars, non-empty labels) must lie inside each of its ancestors, except where an
// ancestor is a scroll area's viewport whose scroll bars can bring it into view. Returns one line
// per control that fails ("budgetSpin (QSpinBox): clipped by inspectorContent ..."); empty when
// every control is reachable.
QStringList unreachable_controls(QWidget& root);

// How many controls unreachable_controls looked at (so a test can tell it saw the panels at all).
int reachable_control_count(QWidget& root);

}  // namespace snapdoc::test
