// ui/document/fixed_pitch_font.h chooses the face for text shown as written and for code on what it
// draws, so the view lines columns up whichever fonts are installed (with or without
// fonts-noto-mono and fonts-urw-base35, which change what fontconfig's "monospace" resolves to).
// Every installed Latin family is tried as the preference: one that draws fixed pitch is kept (the
// desktop's choice stands), any other is replaced by one that does. Pitch is measured by the test's
// own glyph widths (tests/ui/support/glyph_widths.h), never by a family name.
#include <QFontDatabase>
#include <QFontInfo>
#include <QtTest>

#include "tests/ui/support/glyph_widths.h"
#include "ui/document/fixed_pitch_font.h"

using snapdoc::test::drawn_fixed_pitch;
using snapdoc::test::glyph_widths;
using snapdoc::ui::fixed_pitch_font;

class TestFixedPitchFont : public QObject {
    Q_OBJECT

private slots:
    void the_desktop_fixed_font_draws_fixed_pitch() {
        const QFont& f = fixed_pitch_font();
        QVERIFY2(drawn_fixed_pitch(f), qPrintable(glyph_widths(f)));
        // Pinned to the face it resolved to, so a family name passed on (the styler's formats)
        // draws that same face.
        QCOMPARE(QFontInfo(f).family(), f.family());
        QCOMPARE(f.pointSizeF(), QFontDatabase::systemFont(QFontDatabase::FixedFont).pointSizeF());
    }

    void every_installed_family_as_the_preference() {
        int kept = 0, replaced = 0;
        for (const QString& family : QFontDatabase::families(QFontDatabase::Latin)) {
            QFont preferred(family, 11);
            const QString face = QFontInfo(preferred).family();
            const QFont chosen = fixed_pitch_font(preferred);
            const QString what = family + " -> " + glyph_widths(chosen);
            QVERIFY2(drawn_fixed_pitch(chosen), qPrintable(what));
            QCOMPARE(chosen.pointSizeF(), 11.0);
            if (drawn_fixed_pitch(preferred)) {
                QVERIFY2(QFontInfo(chosen).family() == face, qPrintable(what));
                ++kept;
            } else {
                ++replaced;
            }
        }
        // Both branches ran: fonts-dejavu-core alone has a proportional and a fixed-pitch family.
        QVERIFY2(kept > 0, "no installed family draws fixed pitch");
        QVERIFY2(replaced > 0, "no installed family draws proportionally");
    }
};

QTEST_MAIN(TestFixedPitchFont)
#include "test_fixed_pitch_font.moc"
