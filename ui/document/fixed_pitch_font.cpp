#include "ui/document/fixed_pitch_font.h"

#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QStringList>
#include <cmath>

namespace snapdoc::ui {

bool draws_fixed_pitch(const QFont& font) {
    const QFontMetricsF metrics(font);
    const qreal width = metrics.horizontalAdvance(QLatin1Char('i'));
    if (width <= 0) return false;
    for (const QChar c : QStringLiteral("Wm0."))
        if (std::abs(metrics.horizontalAdvance(c) - width) > 0.01 * width) return false;
    return true;
}

QFont fixed_pitch_font(const QFont& preferred) {
    // Pinning the resolved family means the face measured here is the face drawn later, even when
    // the font is passed on as a family name alone (the styler's char formats).
    QFont resolved = preferred;
    resolved.setFamilies({QFontInfo(preferred).family()});
    if (draws_fixed_pitch(resolved)) return resolved;
    for (const QString& family : QFontDatabase::families(QFontDatabase::Latin)) {
        if (!QFontDatabase::isFixedPitch(family) || QFontDatabase::isPrivateFamily(family)) continue;
        QFont candidate = preferred;
        candidate.setFamilies({family});
        candidate.setStyleHint(QFont::TypeWriter);
        candidate.setFixedPitch(true);
        // The database's flag alone is not enough: an alias family can be flagged fixed and still
        // resolve to another face.
        candidate.setFamilies({QFontInfo(candidate).family()});
        if (draws_fixed_pitch(candidate)) return candidate;
    }
    return preferred;
}

const QFont& fixed_pitch_font() {
    static const QFont font = fixed_pitch_font(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return font;
}

}  // namespace snapdoc::ui
