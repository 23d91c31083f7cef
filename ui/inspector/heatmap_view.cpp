#include "ui/inspector/heatmap_view.h"

#include <algorithm>
#include <cmath>

namespace snapdoc::ui {

void HeatmapView::set_total(int total) {
    total = std::max(0, total);
    if (total == total_) return;
    const bool keep = zoomed() && end() <= total;
    total_ = total;
    if (!keep) {
        first_ = 0;
        count_ = total_;
    }
    clamp();
}

void HeatmapView::clamp() {
    const int lo = std::min(kMinCount, total_);
    count_ = std::clamp(count_, lo, total_);
    first_ = std::clamp(first_, 0, total_ - count_);
}

void HeatmapView::zoom(double factor, double anchor) {
    if (total_ <= 0 || !(factor > 0)) return;
    anchor = std::clamp(anchor, 0.0, 1.0);
    const double at = first_ + anchor * count_;
    // In double until clamped: a huge zoom-out factor must not overflow an int.
    const double count = std::clamp(count_ / factor, static_cast<double>(std::min(kMinCount, total_)),
                                    static_cast<double>(total_));
    count_ = static_cast<int>(std::lround(count));
    first_ = static_cast<int>(std::lround(at - anchor * count_));
    clamp();
}

void HeatmapView::pan(int positions) {
    first_ += positions;
    clamp();
}

void HeatmapView::show(int first, int count) {
    first_ = first;
    count_ = count;
    clamp();
}

void HeatmapView::center_on(int position) {
    first_ = position - count_ / 2;
    clamp();
}

void HeatmapView::reset() {
    first_ = 0;
    count_ = total_;
}

}  // namespace snapdoc::ui
