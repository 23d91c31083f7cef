#include "ui/widgets/elided_button.h"

#include <QStyleOptionButton>
#include <QStylePainter>

namespace snapdoc::ui {

ElidedButton::ElidedButton(const QString& text, QWidget* parent) : QPushButton(text, parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QSize ElidedButton::minimumSizeHint() const {
    const QSize full = QPushButton::minimumSizeHint();
    const int text_w = fontMetrics().horizontalAdvance(text());
    const int few = fontMetrics().horizontalAdvance(QStringLiteral("Mmmmmm…"));
    return QSize(std::max(0, full.width() - std::max(0, text_w - few)), full.height());
}

void ElidedButton::paintEvent(QPaintEvent*) {
    QStylePainter p(this);
    QStyleOptionButton option;
    initStyleOption(&option);
    const QRect contents = style()->subElementRect(QStyle::SE_PushButtonContents, &option, this);
    // Leave the style's text margin on both sides (what QPushButton's size hint adds to the text).
    const int room = contents.width() - 2 * style()->pixelMetric(QStyle::PM_ButtonMargin, &option, this) / 2;
    option.text = fontMetrics().elidedText(text(), Qt::ElideRight, std::max(0, room));
    p.drawControl(QStyle::CE_PushButton, option);
}

}  // namespace snapdoc::ui
