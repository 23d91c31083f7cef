#include "ui/inspector/retention_grid.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "ui/inspector/axis_labels.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

namespace {
constexpr int kDragThreshold = 4;  // pixels a press may move and still be a click
constexpr double kWheelZoom = 1.25;  // per wheel notch
constexpr int kMinLabelSpacing = 90;  // pixels between axis labels

}  // namespace

RetentionGrid::RetentionGrid(QWidget* parent) : QWidget(parent) {
    setObjectName("retentionGrid");
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    // Vertically it may shrink to minimumSizeHint (a Fixed policy makes the scroll area treat the
    // image's height as the minimum).
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
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
    view_ = {};
    locked_layer_ = locked_head_ = -1;
    updateGeometry();
    update();
}

void RetentionGrid::set_locked(int layer, int head) {
    locked_layer_ = layer;
    locked_head_ = head;
    update();
}

void RetentionGrid::set_head_roles(const HeadRoles& roles) {
    roles_ = roles;
    update();
}

void RetentionGrid::set_view(int first, int count) {
    const int f = view_.first(), c = view_.count();
    view_.show(first, count);
    view_moved(f, c);
}

void RetentionGrid::view_moved(int old_first, int old_count) {
    if (view_.first() == old_first && view_.count() == old_count) return;
    update();
    emit viewChanged(view_.first(), view_.count());
}

int RetentionGrid::plot_width() const {
    return std::max(16, width() - kLabelWidth);
}

QRect RetentionGrid::plot_rect() const {
    // The strips start at the top, so image rows and widget rows are the same; the axis is below.
    return QRect(kLabelWidth, 0, plot_width(), image_.isNull() ? 0 : image_.height());
}

QSize RetentionGrid::sizeHint() const {
    return {360, image_.isNull() ? 120 : image_.height() + kAxisHeight};
}
QSize RetentionGrid::minimumSizeHint() const {
    if (image_.isNull()) return {120, 40};
    return {120, minimum_content_height_ > 0 ? minimum_content_height_ : image_.height() + kAxisHeight};
}

void RetentionGrid::set_minimum_content_height(int h) {
    if (h == minimum_content_height_) return;
    minimum_content_height_ = h;
    updateGeometry();
}

RetentionGrid::Hit RetentionGrid::hit_at(const QPoint& p) const {
    Hit h;
    const QRect r = plot_rect();
    if (image_.isNull() || !r.contains(p)) return h;
    // The image may be a different width than the plot until the next render; map proportionally.
    const int x = (p.x() - r.left()) * image_.width() / std::max(1, r.width());
    const auto [layer, head] = geometry_.strip_at(p.y() - r.top());
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
    if (location_of_) {
        const QString loc = location_of_(h.first);
        if (!loc.isEmpty()) where += QStringLiteral(" · ") + loc;
    }
    QString text = text_of_ ? text_of_(h.first, h.last) : QString();
    if (text.size() > 160) text = text.left(160) + QStringLiteral("…");
    QString tip = tr("Layer %1, head %2").arg(h.layer).arg(h.head);
    const QString role = role_of(h.layer, h.head);
    if (!role.isEmpty()) tip += tr(" (%1)").arg(role);
    tip += QStringLiteral(" · ") + where;
    if (!text.trimmed().isEmpty()) tip += QStringLiteral("\n“") + text.simplified() + QStringLiteral("”");
    return tip;
}

std::vector<RetentionGrid::Tick> RetentionGrid::axis_ticks() const {
    std::vector<Tick> ticks;
    const int first = geometry_.view_count > 0 ? geometry_.view_first : view_.first();
    const int count = geometry_.view_count > 0 ? geometry_.view_count : view_.count();
    if (image_.isNull() || count <= 0) return ticks;
    for (const auto& [pos, x] : axis_positions(first, count, kLabelWidth, plot_width(), kMinLabelSpacing)) {
        Tick t;
        t.position = pos;
        t.x = x;
        if (location_of_) t.location = location_of_(pos);
        ticks.push_back(t);
    }
    return ticks;
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
    if (e->button() != Qt::LeftButton || image_.isNull()) return QWidget::mousePressEvent(e);
    pressed_ = true;
    dragging_ = false;
    press_pos_ = e->position().toPoint();
    press_first_ = view_.first();
}

void RetentionGrid::mouseMoveEvent(QMouseEvent* e) {
    if (!pressed_) return QWidget::mouseMoveEvent(e);
    const int dx = e->position().toPoint().x() - press_pos_.x();
    if (!dragging_ && std::abs(dx) <= kDragThreshold) return;
    dragging_ = true;
    setCursor(Qt::ClosedHandCursor);
    // Dragging right moves the document right: the view starts earlier.
    const int f = view_.first(), c = view_.count();
    view_.show(press_first_ - static_cast<int>(static_cast<int64_t>(dx) * c / std::max(1, plot_width())), c);
    view_moved(f, c);
}

void RetentionGrid::mouseReleaseEvent(QMouseEvent* e) {
    if (!pressed_ || e->button() != Qt::LeftButton) return QWidget::mouseReleaseEvent(e);
    pressed_ = false;
    if (dragging_) {
        dragging_ = false;
        unsetCursor();
        return;
    }
    const Hit h = hit_at(e->position().toPoint());
    if (h.layer < 0) return;
    set_locked(h.layer, h.head);
    emit headClicked(h.layer, h.head, h.first);
}

void RetentionGrid::wheelEvent(QWheelEvent* e) {
    if (image_.isNull() || view_.total() <= 0) return QWidget::wheelEvent(e);
    const QPoint delta = e->angleDelta();
    const int f = view_.first(), c = view_.count();
    const bool pan = (e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y());
    if (pan) {
        const int d = std::abs(delta.x()) > std::abs(delta.y()) ? delta.x() : delta.y();
        view_.pan(-static_cast<int>(static_cast<int64_t>(d) * c / (120 * 8)));  // 1/8 view per notch
    } else {
        const double anchor = (e->position().x() - kLabelWidth) / std::max(1, plot_width());
        view_.zoom(std::pow(kWheelZoom, delta.y() / 120.0), anchor);
    }
    view_moved(f, c);
    e->accept();
}

void RetentionGrid::keyPressEvent(QKeyEvent* e) {
    const int f = view_.first(), c = view_.count();
    switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            view_.zoom(2.0);
            break;
        case Qt::Key_Minus:
            view_.zoom(0.5);
            break;
        case Qt::Key_Left:
            view_.pan(-std::max(1, c / 5));
            break;
        case Qt::Key_Right:
            view_.pan(std::max(1, c / 5));
            break;
        case Qt::Key_Home:
        case Qt::Key_0:
            view_.reset();
            break;
        case Qt::Key_End:
            view_.pan(view_.total());
            break;
        default:
            return QWidget::keyPressEvent(e);
    }
    view_moved(f, c);
}

void RetentionGrid::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    emit plotWidthChanged(plot_width());
}

std::vector<AxisLabel> RetentionGrid::strip_labels() const {
    std::vector<AxisLabel> out;
    if (image_.isNull()) return out;
    const QRect r = plot_rect();
    const QFontMetrics fm(axis_font());
    const int strip = geometry_.layout.strip_height;
    if (strip >= fm.height() - 2) {
        // Every strip tall enough for text: "L0 h0", then "h1", ... below it in the layer.
        for (int l = 0; l < geometry_.n_layers; ++l)
            for (int h = 0; h < geometry_.heads; ++h)
                out.push_back({QRect(0, r.top() + geometry_.strip_top(l, h), kLabelWidth - 4, strip),
                               h == 0 ? QStringLiteral("L%1 h0").arg(l) : QStringLiteral("h%1").arg(h)});
        return out;
    }
    const int per_layer = geometry_.heads * strip;
    const int label_every = per_layer >= 10 ? 1 : (per_layer >= 5 ? 2 : 4);
    for (int l = 0; l < geometry_.n_layers; l += label_every)
        out.push_back({QRect(0, r.top() + geometry_.strip_top(l, 0), kLabelWidth - 4, std::max(per_layer, 10)),
                       QStringLiteral("L%1").arg(l)});
    return out;
}

std::vector<AxisLabel> RetentionGrid::role_labels() const {
    std::vector<AxisLabel> out;
    if (image_.isNull() || roles_.empty()) return out;
    const QRect r = plot_rect();
    const QFontMetrics fm(axis_font());
    const int strip = geometry_.layout.strip_height;
    if (strip < fm.height()) return out;  // too thin for text: the tooltip and head detail name it
    for (int l = 0; l < geometry_.n_layers; ++l)
        for (int h = 0; h < geometry_.heads; ++h) {
            const QString role = role_of(l, h);
            if (role.isEmpty()) continue;
            const QString text = fm.elidedText(role, Qt::ElideRight, r.width() - 8);
            out.push_back({QRect(r.left() + 2, r.top() + geometry_.strip_top(l, h) + 1,
                                 fm.horizontalAdvance(text) + 6, fm.height()),
                           text});
        }
    return out;
}

QFont RetentionGrid::axis_font() const {
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    return small;
}

std::vector<AxisLabel> RetentionGrid::axis_labels() const {
    // Two rows under the strips: the token index, then the page/line there (each laid out whole).
    const auto ticks = axis_ticks();
    const QFontMetrics fm(axis_font());
    const int top = plot_rect().bottom() + 3;
    std::vector<AxisTickText> index, location;
    for (const Tick& t : ticks) {
        index.push_back({t.x, with_commas(t.position)});
        location.push_back({t.x, t.location});
    }
    auto labels = place_axis_labels(index, kLabelWidth, width(), top, fm);
    const auto second = place_axis_labels(location, kLabelWidth, width(), top + fm.height(), fm);
    labels.insert(labels.end(), second.begin(), second.end());
    return labels;
}

void RetentionGrid::paint_axis(QPainter& p) {
    const int top = plot_rect().bottom() + 1;
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(kLabelWidth, top, kLabelWidth + plot_width(), top);
    p.setPen(palette().color(QPalette::WindowText));
    for (const Tick& t : axis_ticks()) p.drawLine(t.x, top, t.x, top + 3);
    for (const AxisLabel& l : axis_labels()) p.drawText(l.rect, Qt::AlignLeft | Qt::AlignVCenter, l.text);
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
    p.setFont(axis_font());
    paint_axis(p);
    // Heads inside a layer: a light line between strips, where they are tall enough to spare a row.
    if (geometry_.layout.strip_height >= 6) {
        p.setPen(QColor(255, 255, 255, 200));
        for (int l = 0; l < geometry_.n_layers; ++l)
            for (int h = 1; h < geometry_.heads; ++h) {
                const int y = r.top() + geometry_.strip_top(l, h);
                p.drawLine(r.left(), y, r.right(), y);
            }
    }
    p.setPen(palette().color(QPalette::WindowText));
    for (const AxisLabel& l : strip_labels()) p.drawText(l.rect, Qt::AlignRight | Qt::AlignVCenter, l.text);
    // Role names on a light tag over the strip's left end: readable on any colour of the heatmap.
    for (const AxisLabel& l : role_labels()) {
        p.fillRect(l.rect, QColor(255, 255, 255, 215));
        p.setPen(QColor(30, 30, 30));
        p.drawText(l.rect, Qt::AlignCenter, l.text);
    }
    if (locked_layer_ >= 0 && locked_layer_ < geometry_.n_layers && locked_head_ < geometry_.heads) {
        const int top = r.top() + geometry_.strip_top(locked_layer_, locked_head_);
        p.setPen(QPen(QColor(220, 30, 60), 1));
        p.drawRect(QRect(r.left(), top - 1, r.width() - 1, geometry_.layout.strip_height + 1));
    }
}

}  // namespace snapdoc::ui
