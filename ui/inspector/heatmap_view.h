// The zoomed range of prompt positions the retention grid shows: zoom about an anchor position,
// pan, clamp into the prompt. Pure arithmetic (no Qt), shared by the grid (wheel, drag, keys) and
// the minimap (click to move), tested directly.
#pragma once

namespace snapdoc::ui {

class HeatmapView {
public:
    // The fewest positions a view shows (deeper zoom would show one position per many pixels).
    static constexpr int kMinCount = 16;

    // A new prompt length: the view is kept where it is when it still fits, else reset.
    void set_total(int total);
    int total() const { return total_; }
    int first() const { return first_; }
    int count() const { return count_; }
    int end() const { return first_ + count_; }
    bool zoomed() const { return count_ < total_; }

    // factor > 1 zooms in. The position at `anchor` (a fraction 0..1 across the view) stays where
    // it is, as under the mouse wheel.
    void zoom(double factor, double anchor = 0.5);
    void pan(int positions);
    // Shows [first, first + count) (clamped), or centres the view on a position at the same zoom.
    void show(int first, int count);
    void center_on(int position);
    void reset();

private:
    void clamp();

    int total_ = 0, first_ = 0, count_ = 0;
};

}  // namespace snapdoc::ui
