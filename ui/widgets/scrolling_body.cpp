#include "ui/widgets/scrolling_body.h"

#include <QScrollBar>

namespace snapdoc::ui {

ScrollingBody::ScrollingBody(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setObjectName("scrollingBody");
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWidget(content);
}

QSize ScrollingBody::sizeHint() const {
    // QScrollArea caps its hint at 36×24 lines; the room for a scroll bar keeps the content from
    // being squeezed when one appears after all.
    const QSize content = widget() ? widget()->sizeHint() : QSize();
    return content + QSize(verticalScrollBar()->sizeHint().width() + 2 * frameWidth(), 2 * frameWidth());
}

QSize ScrollingBody::minimumSizeHint() const {
    const int width = widget() ? widget()->minimumSizeHint().width() : 0;
    return {width + verticalScrollBar()->sizeHint().width() + 2 * frameWidth(), 4 * fontMetrics().height()};
}

}  // namespace snapdoc::ui
