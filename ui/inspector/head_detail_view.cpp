#include "ui/inspector/head_detail_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "ui/inspector/axis_labels.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/widgets/number_format.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

namespace {
constexpr int kTitleHeight = 34;  // two lines: a long caption wraps
constexpr int kTickHeight = 10;
constexpr int kAxisWidth = 40;
constexpr int kMinLabelSpacing = 70;  // pixels between x-axis labels

const HeadSelection* head_of(const SelectionSnapshot& s, int layer, int head) {
    if (!s.valid() || layer < 0 || layer >= static_cast<int>(s.selection->layers.size())) return nullptr;
    const auto& heads = s.selection->layers[layer];
    return head >= 0 && head < static_cast<int>(heads.size()) ? &heads[head] : nullptr;
}
}  // namespace

HeadDetailView::HeadDetailView(QWidget* parent) : QWidget(parent) {
    setObjectName("headDetailView");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void HeadDetailView::set_head(const SelectionSnapshot& snapshot, int layer, int head) {
    snapshot_ = snapshot;
    layer_ = layer;
    head_ = head;
    update();
}

void HeadDetailView::clear() {
    snapshot_ = {};
    layer_ = head_ = -1;
    update();
}

QString HeadDetailView::summary() const {
    const HeadSelection* h = head_of(snapshot_, layer_, head_);
    if (!h) return {};
    const Selection& s = *snapshot_.selection;
    const KeepExplanation e = explain_head(s, layer_, head_);
    QString text = tr("Layer %1, head %2").arg(layer_).arg(head_);
    const QString role = roles_.of(layer_, head_, static_cast<int>(s.layers[layer_].size()));
    if (!role.isEmpty()) text += tr(" (%1)").arg(role);
    text += tr(": kept %1 of %2 + %3 window")
                .arg(with_commas(static_cast<qint64>(h->kept.size())), with_commas(s.n_prefix()), with_commas(s.window));
    auto num = [](float v) { return QString::number(static_cast<double>(v), 'g', 3); };
    if (e.adaptive) {
        // AdaKV: the head's own smallest kept score is not a threshold; say which rule kept what.
        text += tr(" · adaptive: %1 by this head's floor (its top %2").arg(e.by_floor).arg(e.floor);
        if (e.floor_ties)
            text += tr(", tied at score %1: any of them would do").arg(num(e.floor_threshold));
        else if (e.by_floor > 0)
            text += tr(", score ≥ %1").arg(num(e.floor_threshold));
        text += QStringLiteral(")");
        if (std::isfinite(e.threshold))
            text += tr(", %1 above the layer's shared threshold %2").arg(e.by_threshold).arg(num(e.threshold));
    } else if (e.compressed && std::isfinite(e.threshold)) {
        text += tr(" · top-k threshold %1").arg(num(e.threshold));
    }
    if (!s.compressed) text += tr(" · not compressed");
    return text;
}

QRect HeadDetailView::plot_rect() const {
    // Below the plot: the kept-position ticks, then the x axis (prompt positions).
    const int x_axis = fontMetrics().height() + 4;
    return QRect(kAxisWidth, kTitleHeight, std::max(10, width() - kAxisWidth - 6),
                 std::max(10, height() - kTitleHeight - kTickHeight - x_axis - 6));
}

std::vector<AxisLabel> HeadDetailView::axis_labels() const {
    if (!head_of(snapshot_, layer_, head_)) return {};
    const QRect r = plot_rect();
    std::vector<AxisTickText> ticks;
    for (const auto& [pos, x] : axis_positions(0, snapshot_.selection->prompt_len, r.left(), r.width(), kMinLabelSpacing))
        ticks.push_back({x, with_commas(pos)});
    return place_axis_labels(ticks, r.left(), width(), r.bottom() + kTickHeight + 4, fontMetrics());
}

int HeadDetailView::position_at_x(int x) const {
    if (!snapshot_.valid()) return -1;
    const QRect r = plot_rect();
    const int L = snapshot_.selection->prompt_len;
    return std::clamp(static_cast<int>(static_cast<int64_t>(x - r.left()) * L / std::max(1, r.width())), 0,
                      L - 1);
}

void HeadDetailView::mousePressEvent(QMouseEvent* e) {
    if (!snapshot_.valid() ||
        !plot_rect().adjusted(0, 0, 0, kTickHeight + 2).contains(e->position().toPoint()))
        return QWidget::mousePressEvent(e);
    emit positionClicked(position_at_x(e->position().toPoint().x()));
}

void HeadDetailView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const HeadSelection* h = head_of(snapshot_, layer_, head_);
    p.setPen(palette().color(QPalette::Text));
    if (!h) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("Click a strip to inspect that head."));
        return;
    }
    const Selection& s = *snapshot_.selection;
    p.drawText(QRect(4, 0, width() - 8, kTitleHeight - 4),
               Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, summary());
    const QRect r = plot_rect();
    const int L = s.prompt_len, n_prefix = s.n_prefix();
    const int w = r.width();
    auto x_of = [&](int pos) {
        return r.left() + static_cast<int>(static_cast<int64_t>(pos) * w / std::max(1, L));
    };

    // Observation window: always kept, not scored.
    p.fillRect(QRect(QPoint(x_of(n_prefix), r.top()), QPoint(r.right(), r.bottom() + kTickHeight + 2)),
               for_palette(QColor(230, 120, 20, 60), palette()));

    // Log scale, four decades below the maximum (attention is heavy-tailed: the first token alone
    // often takes most of it, so a linear axis would show a single spike), widened down to the
    // thresholds and the smallest kept score so that every kept tick has its score on the plot.
    const KeepExplanation e = explain_head(s, layer_, head_);
    const auto [lo_log, hi_log] = detail_log_range(e, *h);
    const double hi = std::pow(10.0, hi_log);
    auto y_of = [&, lo_log = lo_log, hi_log = hi_log](double v) {
        const double t = (std::log10(std::max(v, 1e-30)) - lo_log) / std::max(1e-9, hi_log - lo_log);
        return r.bottom() - static_cast<int>(std::clamp(t, 0.0, 1.0) * r.height());
    };
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::Text));
    // Score labels as tall as the font (a fixed 12 px cut them off at larger fonts).
    const int fh = fontMetrics().height();
    p.drawText(QRect(0, r.top() - fh / 2, kAxisWidth - 4, fh), Qt::AlignRight | Qt::AlignVCenter,
               e.max_score > 0 ? QString::number(hi, 'g', 2) : QStringLiteral("0"));
    p.drawText(QRect(0, r.bottom() - fh / 2, kAxisWidth - 4, fh), Qt::AlignRight | Qt::AlignVCenter,
               e.max_score > 0 ? QString::number(std::pow(10.0, lo_log), 'g', 1) : QString());

    // Curve: the maximum pooled score in each column's positions.
    QPainterPath path;
    bool started = false;
    for (int x = 0; x < w; ++x) {
        const int a = static_cast<int>(static_cast<int64_t>(x) * L / w);
        const int b =
            std::min(n_prefix, std::max(a + 1, static_cast<int>(static_cast<int64_t>(x + 1) * L / w)));
        if (a >= n_prefix) break;
        float m = 0;
        for (int q = a; q < b; ++q) m = std::max(m, h->pooled[q]);
        const QPointF pt(r.left() + x, y_of(m));
        if (started) {
            path.lineTo(pt);
        } else {
            path.moveTo(pt);
            started = true;
        }
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(for_palette(QColor(24, 92, 200), palette()), 1.2));
    p.drawPath(path);
    p.setRenderHint(QPainter::Antialiasing, false);

    // The rule's thresholds: the head's top-k (uniform, pyramid) or the layer's shared one
    // (adaptive, dashed), and the adaptive floor's smallest score (dotted).
    if (e.compressed && std::isfinite(e.threshold) && e.threshold > 0) {
        p.setPen(QPen(for_palette(QColor(220, 30, 60), palette()), 1, Qt::DashLine));
        const int y = y_of(e.threshold);
        p.drawLine(r.left(), y, x_of(n_prefix), y);
    }
    if (e.adaptive && e.by_floor > 0 && e.floor_threshold > 0) {
        p.setPen(QPen(for_palette(QColor(120, 60, 190), palette()), 1, Qt::DotLine));
        const int y = y_of(e.floor_threshold);
        p.drawLine(r.left(), y, x_of(n_prefix), y);
    }
    // Kept positions as ticks under the plot.
    const int tick_top = r.bottom() + 3;
    p.setPen(for_palette(QColor(24, 92, 200), palette()));
    int last_x = -1;
    for (int32_t pos : h->kept) {
        const int x = x_of(pos);
        if (x == last_x) continue;
        p.drawLine(x, tick_top, x, tick_top + kTickHeight - 2);
        last_x = x;
    }
    // The x axis: prompt positions, each label whole.
    p.setPen(palette().color(QPalette::Text));
    for (const auto& [pos, x] : axis_positions(0, L, r.left(), w, kMinLabelSpacing))
        p.drawLine(x, r.bottom() + kTickHeight + 1, x, r.bottom() + kTickHeight + 3);
    for (const AxisLabel& l : axis_labels()) p.drawText(l.rect, Qt::AlignLeft | Qt::AlignVCenter, l.text);
}

}  // namespace snapdoc::ui
