#include "tests/ui/support/glyph_widths.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <cmath>

namespace snapdoc::test {

bool drawn_fixed_pitch(const QFont& font) {
    const QFontMetricsF m(font);
    const qreal i = m.horizontalAdvance(QLatin1Char('i'));
    const qreal w = m.horizontalAdvance(QLatin1Char('W'));
    const qreal em = m.horizontalAdvance(QLatin1Char('m'));
    // A proportional face differs by a factor of 2-4 here; hinting may round a fixed one by a hair.
    return i > 0 && std::abs(w - i) < 0.05 * i && std::abs(em - i) < 0.05 * i;
}

QString glyph_widths(const QFont& font) {
    const QFontMetricsF m(font);
    return QStringLiteral("%1: i %2, W %3, m %4")
        .arg(QFontInfo(font).family())
        .arg(m.horizontalAdvance(QLatin1Char('i')), 0, 'f', 2)
        .arg(m.horizontalAdvance(QLatin1Char('W')), 0, 'f', 2)
        .arg(m.horizontalAdvance(QLatin1Char('m')), 0, 'f', 2);
}

}  // namespace snapdoc::test
