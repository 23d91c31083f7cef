// Colours that follow the palette's light or dark theme. Qt 6.4 has no QStyleHints::colorScheme,
// so a theme is dark when the palette's window colour is (its lightness below half). The app's
// fixed colours were picked for a light theme; on a dark one the same hue and saturation with the
// lightness mirrored keeps each meaning (a blue question card, a red error) readable on it.
#pragma once

#include <QColor>
#include <QPalette>

namespace snapdoc::ui {

bool is_dark(const QPalette& palette);
// `light_theme_color` as it is on a light palette, mirrored in lightness on a dark one.
QColor for_palette(const QColor& light_theme_color, const QPalette& palette);

}  // namespace snapdoc::ui
