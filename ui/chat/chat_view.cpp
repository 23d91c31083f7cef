#include "ui/chat/chat_view.h"

#include <QScrollBar>
#include <QTimer>

#include "ui/chat/chat_delegate.h"
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
}

QString ChatView::current_text() const {
    if (!model()) return {};
    const QModelIndex sel = currentIndex();
    if (sel.isValid()) return sel.data(Qt::DisplayRole).toString();
    for (int r = model()->rowCount() - 1; r >= 0; --r) {
        const QModelIndex i = model()->index(r, 0);
        if (i.data(ChatModel::RoleRole).toString() == QLatin1String("assistant")) return i.data().toString();
    }
    return {};
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

void ChatView::resizeEvent(QResizeEvent* event) {
    QListView::resizeEvent(event);
    scheduleDelayedItemsLayout();
}

}  // namespace snapdoc::ui
