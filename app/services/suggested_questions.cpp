#include "app/services/suggested_questions.h"

#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QStringDecoder>

namespace snapdoc::services {

namespace {
constexpr qint64 kMaxSideFileBytes = 64 * 1024;  // a list of questions, not a document
constexpr int kMaxQuestionChars = 300;
}  // namespace

QString suggested_questions_path(const QString& document) {
    const QFileInfo fi(document);
    return fi.dir().filePath(fi.completeBaseName() + ".questions.tsv");
}

QStringList load_suggested_questions(const QString& document, int limit) {
    QFile file(suggested_questions_path(document));
    if (file.size() > kMaxSideFileBytes || !file.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = file.readAll();
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8.decode(bytes);
    if (utf8.hasError()) return {};  // not text: show nothing rather than mojibake
    QStringList out;
    for (const QString& raw : text.split('\n')) {
        if (out.size() >= limit) break;
        const QString question = raw.section('\t', 0, 0).trimmed();
        if (question.isEmpty() || question.startsWith('#') || question.size() > kMaxQuestionChars) continue;
        if (!out.contains(question)) out.push_back(question);
    }
    return out;
}

}  // namespace snapdoc::services
