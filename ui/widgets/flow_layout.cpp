#include "ui/widgets/flow_layout.h"

#include <QWidget>
#include <algorithm>

namespace snapdoc::ui {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), gap_(spacing) {
    setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
    while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) {
    items_.append(item);
    invalidate();
}

QLayoutItem* FlowLayout::itemAt(int index) const {
    return index >= 0 && index < items_.size() ? items_[index] : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
    if (index < 0 || index >= items_.size()) return nullptr;
    QLayoutItem* item = items_.takeAt(index);
    invalidate();
    return item;
}

int FlowLayout::heightForWidth(int width) const {
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const {
    // As narrow as the widest item's minimum: everything else goes onto further rows.
    QSize s;
    for (const QLayoutItem* item : items_)
        if (!item->isEmpty()) s = s.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return s + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
    // Everything on one row.
    int w = 0, h = 0, n = 0;
    for (const QLayoutItem* item : items_) {
        if (item->isEmpty()) continue;
        const QSize s = item->sizeHint();
        w += s.width() + (n++ > 0 ? gap_ : 0);
        h = std::max(h, s.height());
    }
    const QMargins m = contentsMargins();
    return QSize(w + m.left() + m.right(), h + m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect& rect) {
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::arrange(const QRect& rect, bool apply) const {
    const QMargins m = contentsMargins();
    const QRect area = rect.marginsRemoved(m);
    const int width = std::max(1, area.width());
    struct Placed {
        QLayoutItem* item;
        int width;
    };
    QList<Placed> row;
    int y = area.y();
    int used = 0;  // width taken by the row so far, gaps included
    auto finish_row = [&] {
        if (row.isEmpty()) return;
        int height = 0, expanding = 0;
        for (const Placed& p : row) {
            height = std::max(height, p.item->sizeHint().height());
            if (p.item->expandingDirections() & Qt::Horizontal) ++expanding;
        }
        // What is left of the row goes to the items that want it, in equal parts.
        const int spare = std::max(0, width - used);
        int x = area.x();
        for (const Placed& p : row) {
            int w = p.width;
            if (expanding > 0 && (p.item->expandingDirections() & Qt::Horizontal)) w += spare / expanding;
            if (apply) p.item->setGeometry(QRect(x, y, w, height));
            x += w + gap_;
        }
        y += height + gap_;
        row.clear();
        used = 0;
    };
    for (QLayoutItem* item : items_) {
        if (item->isEmpty()) continue;
        const int w = std::clamp(item->sizeHint().width(), std::min(item->minimumSize().width(), width), width);
        const int needed = row.isEmpty() ? w : used + gap_ + w;
        if (!row.isEmpty() && needed > width) finish_row();
        used = row.isEmpty() ? w : used + gap_ + w;
        row.append({item, w});
    }
    finish_row();
    const int height = y - area.y() - (y > area.y() ? gap_ : 0);
    return height + m.top() + m.bottom();
}

}  // namespace snapdoc::ui
