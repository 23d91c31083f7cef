#include "ui/widgets/sentence_case.h"

namespace snapdoc::ui {

QString sentence_case(const QString& text) {
    QString out = text;
    for (qsizetype i = 0; i < out.size(); ++i) {
        if (!out[i].isLetter()) continue;
        out[i] = out[i].toUpper();
        break;
    }
    return out;
}

}  // namespace snapdoc::ui
