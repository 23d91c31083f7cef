// Messages from the engine and the services start in lower case ("no such file: …", the CLI style);
// shown beside a capitalised title or as a status line they read as sentences (issue 23).
#pragma once

#include <QString>

namespace snapdoc::ui {

// `text` with its first letter in upper case (the rest as it is).
QString sentence_case(const QString& text);

}  // namespace snapdoc::ui
