#include "ui/chat/suggestion_list.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/widgets/elided_button.h"

namespace snapdoc::ui {

namespace {
constexpr int kRowsWithoutScrolling = 4;
}

SuggestionScroll::SuggestionScroll(QWidget* parent) : QScrollArea(parent) {
    setObjectName("suggestionScroll");
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

int SuggestionScroll::rows_height() const {
    const QWidget* list = widget();
    if (!list || !list->layout()) return 0;
    const QLayout* rows = list->layout();
    // The widgets' hints, not the layout items': an item of a widget that is not shown yet (it is
    // shown from the event loop after addWidget) is "empty" and reports 0 × 0.
    int height = 0, counted = 0;
    for (int i = 0; i < rows->count() && counted < kRowsWithoutScrolling; ++i) {
        const QWidget* row = rows->itemAt(i)->widget();
        if (!row) continue;
        height += (counted > 0 ? rows->spacing() : 0) + row->sizeHint().height();
        ++counted;
    }
    if (rows->count() > kRowsWithoutScrolling && counted > 0)
        height += rows->spacing() + rows->itemAt(0)->widget()->sizeHint().height() / 2;
    return height;
}

QSize SuggestionScroll::sizeHint() const {
    return {QScrollArea::sizeHint().width(), rows_height()};
}

QSize SuggestionScroll::minimumSizeHint() const {
    return {QScrollArea::minimumSizeHint().width(), rows_height()};
}

SuggestionList::SuggestionList(QWidget* parent) : QWidget(parent) {
    setObjectName("suggestions");
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    box->addWidget(new QLabel(tr("Suggested questions:"), this));
    scroll_ = new SuggestionScroll(this);
    auto* list = new QWidget;
    rows_ = new QVBoxLayout(list);
    rows_->setContentsMargins(0, 0, 0, 0);
    rows_->setSpacing(2);
    scroll_->setWidget(list);
    box->addWidget(scroll_);
    hide();
}

void SuggestionList::set_questions(const QStringList& questions) {
    while (rows_->count() > 0) {
        QLayoutItem* item = rows_->takeAt(0);
        delete item->widget();
        delete item;
    }
    for (const QString& q : questions) {
        auto* button = new ElidedButton(q, scroll_->widget());
        button->setObjectName("suggestionButton");
        button->setFlat(true);
        button->setStyleSheet("text-align: left;");
        button->setToolTip(tr("Ask: %1").arg(q));
        connect(button, &QPushButton::clicked, this, [this, q] { emit questionClicked(q); });
        rows_->addWidget(button);
    }
    setVisible(!questions.isEmpty());
    scroll_->updateGeometry();  // a new height hint for the chat column's layout
}

}  // namespace snapdoc::ui
