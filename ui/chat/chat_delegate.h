// Paints one chat message as a card: who speaks (and which version of the answer), the text
// (answers as Markdown: code blocks, lists, emphasis; questions as typed), a cursor while it
// streams, the citations under an answer (clickable, see ChatView) and the statistics line.
//
// One layout function serves sizeHint, paint and hit testing, all at the width of the view's
// viewport, so the measured height is the painted height. Painting is clipped to the item's
// rectangle: a card drawn in a stale rectangle (the view re-lays out its items later, after the
// text or meta line changed) can never paint over its neighbour.
#pragma once

#include <QColor>
#include <QPalette>
#include <QRect>
#include <QStyledItemDelegate>
#include <memory>
#include <vector>

class QTextDocument;

namespace snapdoc::ui {

class ChatDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    struct Layout {
        QRect card, header, body, meta;
        std::vector<QRect> citations;
        int height = 0;  // of the whole item, margins included
    };

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // Geometry of the item at `option.rect`'s top-left (the height is the item's own, whatever
    // option.rect's height is).
    Layout layout(const QStyleOptionViewItem& option, const QModelIndex& index) const;
    // Which citation of the item lies under `pos` (view coordinates), -1 for none.
    int citation_at(const QStyleOptionViewItem& option, const QModelIndex& index, const QPoint& pos) const;
    // The laid-out text of a message: Markdown for answers, plain text otherwise.
    // `palette`: the view's (a dark theme gets dark code-block backgrounds); default: the application's.
    static std::unique_ptr<QTextDocument> body_document(const QModelIndex& index, const QFont& font, int width,
                                                        const QPalette& palette = QPalette());
    // The pen of a citation line: link blue, or grey for a weak one (tests read it off the pixels).
    static QColor citation_color(bool weak, const QPalette& palette);
};

}  // namespace snapdoc::ui
