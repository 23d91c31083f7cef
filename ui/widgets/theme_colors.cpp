#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

bool is_dark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor for_palette(const QColor& light_theme_color, const QPalette& palette) {
    if (!is_dark(palette)) return light_theme_color;
    const QColor hsl = light_theme_color.toHsl();
    return QColor::fromHsl(hsl.hslHue(), hsl.hslSaturation(), 255 - hsl.lightness(), hsl.alpha());
}

}  // namespace snapdoc::ui
