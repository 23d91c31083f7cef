// The fixed-pitch face for text shown as written (a hard-wrapped licence or RFC) and for Markdown
// code. Which face fontconfig's "monospace" alias resolves to depends on the fonts installed: with
// fonts-noto-mono beside fonts-dejavu-core (as ImageMagick or Ghostscript pull in) it is Noto Sans
// Mono, which fontconfig does not mark as monospaced (it has a few glyphs of other widths), so
// QFontInfo::fixedPitch() says false although its Latin glyphs all have one width. And on a
// machine whose alias resolves to a proportional face, columns would not line up at all. So the
// choice is made on what is drawn, not on a flag or a family name.
#pragma once

#include <QFont>

namespace snapdoc::ui {

// True when the Latin glyphs of `font` as drawn ('i', 'W', 'm', '0', '.') share one advance.
bool draws_fixed_pitch(const QFont& font);

// `preferred` with its family pinned to the face it resolves to, when that face draws fixed pitch;
// else the first installed Latin family that QFontDatabase reports fixed-pitch and that draws so,
// at preferred's size; else `preferred` unchanged (no fixed-pitch face installed at all).
QFont fixed_pitch_font(const QFont& preferred);

// fixed_pitch_font() of the desktop's fixed font (QFontDatabase::systemFont(FixedFont): the
// platform theme's choice, fontconfig's "monospace" on a generic Linux desktop), chosen once per
// process: the styler asks for it on every code block.
const QFont& fixed_pitch_font();

}  // namespace snapdoc::ui
