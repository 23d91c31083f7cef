// The app's theme setting (Settings > Appearance): follow the system, or force light or dark.
// Qt 6.4 has no colour-scheme API, so a forced theme is an application palette (Fusion's colour
// roles, which every style here draws with); "system" puts back the palette the platform gave at
// start. Every widget gets a PaletteChange and redraws: colours picked for a light theme follow
// through theme_colors.h (for_palette) and follow_palette_color below.
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

class QWidget;

namespace snapdoc::ui {

enum class Theme { System, Light, Dark };
Theme parse_theme(const QString& name);  // "system", "light", "dark"; anything else: System
QString theme_name(Theme theme);

QPalette light_theme_palette();
QPalette dark_theme_palette();

// Sets the application palette for `theme` (the first call remembers the platform's palette).
void apply_theme(Theme theme);

// Keeps `widget`'s text (QPalette::WindowText) in `light_theme_color` on a light palette and its
// lightness-mirrored twin on a dark one (for_palette), now and after every theme change: for the
// status lines that were a fixed colour in a style sheet (an error in #b02020 on a dark window).
void follow_palette_color(QWidget* widget, const QColor& light_theme_color);

// The colour's name for an HTML span in `widget` (for_palette against its palette).
QString palette_color_name(const QColor& light_theme_color, const QWidget& widget);

}  // namespace snapdoc::ui
