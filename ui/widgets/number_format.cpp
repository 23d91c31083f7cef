#include "ui/widgets/number_format.h"

#include "engine/common/message_text.h"

namespace snapdoc::ui {

QString with_commas(qint64 n) {
    return QString::fromStdString(snapdoc::with_commas(n));  // the engine's messages group the same way
}

}  // namespace snapdoc::ui
