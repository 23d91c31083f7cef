// Tick labels along a horizontal plot axis, placed so that none is clipped (issue 23, item 19):
// the heatmap's last index label ran past the widget's edge ("1800" drawn as "180") and its page/line
// labels were cut to the tick spacing ("page 32 · lin"). Each label starts at its tick, moves left
// when it would pass the axis's right end, and is dropped (not cut) when it would overlap the one
// before it. Shared by the heatmap (RetentionGrid) and the head-detail plot.
#pragma once

#include <QFontMetrics>
#include <QRect>
#include <QString>
#include <vector>

namespace snapdoc::ui {

struct AxisTickText {
    int x = 0;  // the tick's pixel column
    QString text;
};

struct AxisLabel {
    QRect rect;  // wide enough for the whole text (fm.horizontalAdvance) and inside [left, right]
    QString text;
};

std::vector<AxisLabel> place_axis_labels(const std::vector<AxisTickText>& ticks, int left, int right, int top,
                                         const QFontMetrics& fm);

// 1, 2, 5 × 10^k: the smallest such step >= raw (axis steps that read well).
int nice_axis_step(double raw);

// Tick positions for [first, first + count) over `width` pixels from `left`, about one per
// `min_spacing` pixels, at multiples of a nice step. Pairs of (position, x).
std::vector<std::pair<int, int>> axis_positions(int first, int count, int left, int width, int min_spacing);

}  // namespace snapdoc::ui
