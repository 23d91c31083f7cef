// Counts as the app shows them everywhere: "93,210 tokens", "page 1,204 of 1,310". One function, so
// no figure is grouped in one place and not in the next (issue 37: "thousands separators missing
// in some figures but not others"). It is the engine's snapdoc::with_commas (message_text.h) as a
// QString, so the app's labels and the engine's messages group a count the same way, on every locale.
#pragma once

#include <QString>
#include <QtGlobal>

namespace snapdoc::ui {

QString with_commas(qint64 n);

}  // namespace snapdoc::ui
