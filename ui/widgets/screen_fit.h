// Keeps top-level windows on the screen they open on. A window's size is bounded by that screen's
// available geometry (QScreen::availableGeometry: without panels and docks) less room for the
// window manager's frame, so the title bar and the bottom rows (Ask, OK/Cancel) stay reachable on
// a 1024×700 laptop as on a 2560×1440 monitor (issue 37: windows opened at fixed sizes up to
// 1600×950, and a geometry saved on a big monitor came back as it was).
#pragma once

#include <QRect>
#include <QSize>

class QWidget;

namespace snapdoc::ui {

// The available geometry of the screen `window` opens on: its parent's, else the one under its
// geometry's centre (a restored position), else the primary screen.
QRect available_geometry_for(const QWidget& window);

// Sizes `window` to `preferred`, or less where the screen is smaller, and centres it over its
// parent (or on the screen), inside the available geometry. Call before the first show.
void open_on_screen(QWidget& window, const QSize& preferred);

// Shrinks and moves `window` only as far as needed to lie inside the available geometry (a
// geometry restored from another, bigger or absent monitor). Maximized windows are left alone.
void keep_on_screen(QWidget& window);

}  // namespace snapdoc::ui
