// Suggested questions for a document: a side file next to it, `<name>.questions.tsv` for
// `<name>.<ext>` (the demo's sample document ships one). One question per line, optionally followed
// by a tab and the expected answer (ignored here; the evaluations read it); blank lines and lines
// starting with '#' are skipped. The chat panel shows them as buttons that ask the question.
#pragma once

#include <QString>
#include <QStringList>

namespace snapdoc::services {

// The side file's path for `document` (whether it exists or not).
QString suggested_questions_path(const QString& document);

// The questions of `document`'s side file; empty when there is none or it cannot be read (a bad
// side file must never stop the document from opening). At most `limit` questions, each trimmed,
// not empty, valid UTF-8 and at most 300 characters; duplicates dropped.
QStringList load_suggested_questions(const QString& document, int limit = 8);

}  // namespace snapdoc::services
