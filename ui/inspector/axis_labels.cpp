#include "ui/inspector/axis_labels.h"

#include <algorithm>
#include <cmath>

namespace snapdoc::ui {

std::vector<AxisLabel> place_axis_labels(const std::vector<AxisTickText>& ticks, int left, int right, int top,
                                         const QFontMetrics& fm) {
    constexpr int kGap = 6;  // pixels kept free between two labels
    std::vector<AxisLabel> out;
    int free_from = left;
    for (const AxisTickText& t : ticks) {
        if (t.text.isEmpty()) continue;
        // A text wider than the whole axis is the only one ever elided.
        const QString text = fm.horizontalAdvance(t.text) + 2 > right - left
                                 ? fm.elidedText(t.text, Qt::ElideRight, std::max(0, right - left - 2))
                                 : t.text;
        const int w = fm.horizontalAdvance(text) + 2;
        int x = std::min(t.x + 2, right - w);
        x = std::max(x, left);
        if (x < free_from) continue;
        out.push_back({QRect(x, top, w, fm.height()), text});
        free_from = x + w + kGap;
    }
    return out;
}

int nice_axis_step(double raw) {
    if (raw <= 1) return 1;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw) return static_cast<int>(m * decade);
    return static_cast<int>(10 * decade);
}

std::vector<std::pair<int, int>> axis_positions(int first, int count, int left, int width, int min_spacing) {
    std::vector<std::pair<int, int>> out;
    if (count <= 0 || width <= 0) return out;
    const int labels = std::max(1, width / std::max(1, min_spacing));
    const int step = nice_axis_step(static_cast<double>(count) / labels);
    for (int pos = (first + step - 1) / step * step; pos < first + count; pos += step)
        out.emplace_back(pos, left + static_cast<int>(static_cast<int64_t>(pos - first) * width / count));
    return out;
}

}  // namespace snapdoc::ui
