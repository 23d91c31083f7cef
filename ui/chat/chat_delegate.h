// Paints one chat message as a card: who speaks, the wrapped text (with a cursor while it streams)
// and, under answers, the statistics line.
#pragma once

#include <QStyledItemDelegate>

namespace snapdoc::ui {

class ChatDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace snapdoc::ui
