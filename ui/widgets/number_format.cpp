#include "ui/widgets/number_format.h"

#include <QLocale>

namespace snapdoc::ui {

QString with_commas(qint64 n) {
    static const QLocale english(QLocale::English);
    return english.toString(n);
}

}  // namespace snapdoc::ui
