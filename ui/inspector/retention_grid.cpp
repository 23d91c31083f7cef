#include "ui/inspector/retention_grid.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace snapdoc::ui {

namespace {
constexpr int kLabelWidth = 34;  // room for "L31" left of the strips
}

RetentionGrid::RetentionGrid(QWidget* parent) : QWidget(parent) {
    setObjectName("retentionGrid");
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void RetentionGrid::set_image(const QImage& image, const HeatmapGeometry& geometry) {
    image_ = image;
    geometry_ = geometry;
    updateGeometry();
    update();
}

void RetentionGrid::clear() {
    image_ = {};
    geometry_ = {};
    locked_layer_ = locked_head_ = -1;
    updateGeometry();
    update();
}

void RetentionGrid::set_locked(int layer, int head) {
    locked_layer_ = layer;
    locked_head_ = head;
    update();
}

int RetentionGrid::plot_width() const {
    return std::max(16, width() - kLabelWidth);
}

QRect RetentionGrid::plot_rect() const {
    return QRect(kLabelWidth, 0, plot_width(), image_.isNull() ? 0 : image_.height());
}

QSize RetentionGrid::sizeHint() const {
    return {360, image_.isNull() ? 120 : image_.height()};
}
QSize RetentionGrid::minimumSizeHint() const {
    return {120, image_.isNull() ? 40 : image_.height()};
}

RetentionGrid::Hit RetentionGrid::hit_at(const QPoint& p) const {
    Hit h;
    const QRect r = plot_rect();
    if (image_.isNull() || !r.contains(p)) return h;
    // The image may be a different width than the plot until the next render; map proportionally.
    const int x = (p.x() - r.left()) * image_.width() / std::max(1, r.width());
    const auto [layer, head] = geometry_.strip_at(p.y());
    if (layer < 0) return h;
    const auto [first, last] = geometry_.positions_at(x);
    return {layer, head, first, last};
}

QString RetentionGrid::tooltip_at(const QPoint& p) const {
    const Hit h = hit_at(p);
    if (h.layer < 0) return {};
    QString where = h.last - h.first > 1 ? tr("positions %1–%2").arg(h.first).arg(h.last - 1)
                                         : tr("position %1").arg(h.first);
    if (document_tokens_ > 0 && h.first >= document_tokens_) where += tr(" (question)");
    QString text = text_of_ ? text_of_(h.first, h.last) : QString();
    if (text.size() > 160) text = text.left(160) + QStringLiteral("…");
    QString tip = tr("Layer %1, head %2 · %3").arg(h.layer).arg(h.head).arg(where);
    if (!text.trimmed().isEmpty()) tip += QStringLiteral("\n“") + text.simplified() + QStringLiteral("”");
    return tip;
}

bool RetentionGrid::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString tip = tooltip_at(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

void RetentionGrid::mousePressEvent(QMouseEvent* e) {
    const Hit h = hit_at(e->position().toPoint());
    if (h.layer < 0 || e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    set_locked(h.layer, h.head);
    emit headClicked(h.layer, h.head, h.first);
}

void RetentionGrid::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    emit plotWidthChanged(plot_width());
}

void RetentionGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (image_.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Ask a question to see which document positions each attention head keeps."));
        return;
    }
    const QRect r = plot_rect();
    p.drawImage(r, image_);  // nearest-neighbour when the widget was resized since the render
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    p.setPen(palette().color(QPalette::WindowText));
    const int per_layer = geometry_.heads * geometry_.layout.strip_height;
    const int label_every = per_layer >= 10 ? 1 : (per_layer >= 5 ? 2 : 4);
    for (int l = 0; l < geometry_.n_layers; l += label_every) {
        const int top = geometry_.strip_top(l, 0);
        p.drawText(QRect(0, top, kLabelWidth - 4, std::max(per_layer, 10)), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("L%1").arg(l));
    }
    if (locked_layer_ >= 0 && locked_layer_ < geometry_.n_layers && locked_head_ < geometry_.heads) {
        const int top = geometry_.strip_top(locked_layer_, locked_head_);
        p.setPen(QPen(QColor(220, 30, 60), 1));
        p.drawRect(QRect(r.left(), top - 1, r.width() - 1, geometry_.layout.strip_height + 1));
    }
}

}  // namespace snapdoc::ui
