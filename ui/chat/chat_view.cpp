#include "ui/chat/chat_view.h"

#include <QHelpEvent>
#include <QItemSelectionModel>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>

#include "ui/chat/chat_delegate.h"
#include "ui/chat/citation_format.h"
#include "ui/models/chat_model.h"

namespace snapdoc::ui {

ChatView::ChatView(QWidget* parent) : QListView(parent) {
    setObjectName("chatView");
    setItemDelegate(new ChatDelegate(this));
    setUniformItemSizes(false);
    setWordWrap(true);
    setResizeMode(QListView::Adjust);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { stick_to_bottom_ = at_bottom(); });
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int maximum) {
        if (stick_to_bottom_) verticalScrollBar()->setValue(maximum);
    });
}

QString ChatView::current_text() const {
    auto* chat = qobject_cast<const ChatModel*>(model());
    if (!chat || chat->rowCount() == 0) return {};
    // The current index alone is not a choice: a list view sets one on its own (first row on focus).
    const QModelIndex sel =
        selectionModel() && selectionModel()->hasSelection() ? currentIndex() : QModelIndex();
    int row = -1;
    if (sel.isValid() && chat->at(sel.row()).role == QLatin1String("assistant"))
        row = sel.row();
    else if (sel.isValid())
        row = chat->latest_answer_row(sel.row());
    else
        row = chat->latest_answer_row(chat->question_row_of(chat->rowCount() - 1));
    return row >= 0 ? chat->at(row).text : QString();
}

QRect ChatView::citation_rect(int row, int k) const {
    const QModelIndex i = model() ? model()->index(row, 0) : QModelIndex();
    auto* d = qobject_cast<ChatDelegate*>(itemDelegate());
    if (!i.isValid() || !d) return {};
    QStyleOptionViewItem opt;
    initViewItemOption(&opt);
    opt.rect = visualRect(i);
    const auto l = d->layout(opt, i);
    return k >= 0 && k < static_cast<int>(l.citations.size()) ? l.citations[static_cast<std::size_t>(k)]
                                                              : QRect();
}

QString ChatView::tooltip_at(const QPoint& pos) const {
    const QModelIndex i = indexAt(pos);
    auto* d = qobject_cast<ChatDelegate*>(itemDelegate());
    auto* chat = qobject_cast<const ChatModel*>(model());
    if (!i.isValid() || !d || !chat) return {};
    QStyleOptionViewItem opt;
    initViewItemOption(&opt);
    opt.rect = visualRect(i);
    const int k = d->citation_at(opt, i, pos);
    const auto& citations = chat->at(i.row()).citations;
    if (k >= 0 && k < static_cast<int>(citations.size()))
        return citation_tooltip(citations[static_cast<std::size_t>(k)]);
    return i.data(Qt::ToolTipRole).toString();
}

bool ChatView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = tooltip_at(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, viewport());
        return true;
    }
    return QListView::viewportEvent(event);
}

void ChatView::mousePressEvent(QMouseEvent* event) {
    const QModelIndex i = indexAt(event->position().toPoint());
    if (auto* d = qobject_cast<ChatDelegate*>(itemDelegate()); d && i.isValid()) {
        QStyleOptionViewItem opt;
        initViewItemOption(&opt);
        opt.rect = visualRect(i);
        const int k = d->citation_at(opt, i, event->position().toPoint());
        if (k >= 0) {
            emit citationClicked(i.row(), k);
            event->accept();
            return;
        }
    }
    QListView::mousePressEvent(event);
}

bool ChatView::at_bottom() const {
    const QScrollBar* bar = verticalScrollBar();
    return bar->value() >= bar->maximum() - 8;
}

void ChatView::follow() {
    // After the delayed re-layout has run, so the maximum includes the new text.
    QTimer::singleShot(0, this, [this] { scrollToBottom(); });
}

void ChatView::dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                           const QList<int>& roles) {
    const bool follow_text = at_bottom();
    QListView::dataChanged(topLeft, bottomRight, roles);
    // A streamed piece can add a line: item heights must be recomputed, which QListView only does
    // on a layout pass.
    scheduleDelayedItemsLayout();
    if (follow_text) follow();
}

void ChatView::rowsInserted(const QModelIndex& parent, int start, int end) {
    QListView::rowsInserted(parent, start, end);
    follow();
}

void ChatView::reset() {
    QListView::reset();
    stick_to_bottom_ = true;
    follow();
}

void ChatView::resizeEvent(QResizeEvent* event) {
    QListView::resizeEvent(event);
    scheduleDelayedItemsLayout();
}

}  // namespace snapdoc::ui
