// A hub lookup's error for people: libcurl's own text ("…: Couldn't connect to server") said as
// what happened and what to do, with the original kept at the end for a bug report. Texts the hub
// code already words (HTTP statuses, a repository without GGUF files) pass through unchanged.
#pragma once

#include <QString>

namespace snapdoc::ui {

QString hub_error_in_words(const QString& raw);

}  // namespace snapdoc::ui
