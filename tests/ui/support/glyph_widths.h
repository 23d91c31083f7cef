// What a reader sees as fixed pitch, measured on the face Qt draws: 'i' and 'W' (the narrowest and
// widest Latin letters of a proportional face) and 'm' one width. Tests use this instead of
// QFontInfo::fixedPitch(), which reports fontconfig's spacing flag for whatever face the fonts
// installed make "monospace" resolve to: false for Noto Sans Mono (fonts-noto-mono), whose Latin
// glyphs are nevertheless all one width. Measured here, apart from the app's own check
// (ui/document/fixed_pitch_font.h), so a test does not grade the app with the app's code.
#pragma once

#include <QFont>
#include <QString>

namespace snapdoc::test {

bool drawn_fixed_pitch(const QFont& font);
// "Noto Sans Mono: i 7.19, W 7.19, m 7.19", for failure messages.
QString glyph_widths(const QFont& font);

}  // namespace snapdoc::test
