#include "ui/inspector/heatmap_minimap.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace snapdoc::ui {

HeatmapMinimap::HeatmapMinimap(QWidget* parent) : QWidget(parent) {
    setObjectName("heatmapMinimap");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("The whole prompt (all heads summed); the frame is the part shown above. Click or drag "
                  "to move there."));
}

void HeatmapMinimap::set_image(const QImage& image) {
    image_ = image;
    update();
}

void HeatmapMinimap::set_view(int total, int first, int count) {
    total_ = total;
    first_ = first;
    count_ = count;
    update();
}

void HeatmapMinimap::clear() {
    image_ = {};
    total_ = first_ = count_ = 0;
    update();
}

void HeatmapMinimap::set_left_margin(int px) {
    left_ = px;
    update();
}

QRect HeatmapMinimap::bar_rect() const {
    return QRect(left_, 2, std::max(1, width() - left_), std::max(1, height() - 4));
}

QRect HeatmapMinimap::frame_rect() const {
    const QRect r = bar_rect();
    if (total_ <= 0) return {};
    const int x0 = r.left() + static_cast<int>(static_cast<int64_t>(first_) * r.width() / total_);
    const int x1 = r.left() + static_cast<int>(static_cast<int64_t>(first_ + count_) * r.width() / total_);
    // At least 3 px wide, so a deep zoom into 100K positions still shows where it is.
    const int w = std::max(3, x1 - x0);
    return QRect(std::min(x0, r.right() - w + 1), r.top() - 2, w, r.height() + 4);
}

int HeatmapMinimap::position_at(int x) const {
    const QRect r = bar_rect();
    return std::clamp(static_cast<int>(static_cast<int64_t>(x - r.left()) * total_ / std::max(1, r.width())), 0,
                      std::max(0, total_ - 1));
}

void HeatmapMinimap::mousePressEvent(QMouseEvent* e) {
    if (total_ <= 0 || e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    emit centerRequested(position_at(e->position().toPoint().x()));
}

void HeatmapMinimap::mouseMoveEvent(QMouseEvent* e) {
    if (total_ <= 0 || !(e->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(e);
    emit centerRequested(position_at(e->position().toPoint().x()));
}

void HeatmapMinimap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRect r = bar_rect();
    if (image_.isNull() || total_ <= 0) return;
    p.drawImage(r, image_);
    // Dim what is outside the view, then frame the view.
    const QRect f = frame_rect();
    const QColor shade(255, 255, 255, 150);
    p.fillRect(QRect(r.left(), r.top(), f.left() - r.left(), r.height()), shade);
    p.fillRect(QRect(f.right() + 1, r.top(), r.right() - f.right(), r.height()), shade);
    p.setPen(QPen(QColor(220, 30, 60), 2));
    p.drawRect(f.adjusted(1, 1, -1, -1));
}

}  // namespace snapdoc::ui
