// The retention grid as an image: one horizontal strip per (layer, cache head), a range of prompt
// positions (the whole prompt, or the zoomed view) along x binned to pixels, each pixel shaded by
// the fraction of its positions the head keeps — and any pixel that keeps at least one position is
// visibly shaded, so a single kept position among 100K still shows. Also the minimap (all strips
// summed, whole prompt) and the difference of two questions' kept sets. Pure functions of the
// selection snapshots (no widgets, no global state), so they run off the GUI thread and are tested
// pixel by pixel.
#pragma once

#include <QImage>
#include <QRgb>
#include <utility>
#include <vector>

#include "engine/kv/selection.h"

namespace snapdoc::ui {

struct HeatmapLayout {
    int width = 512;       // pixels along x (positions are binned to these)
    int strip_height = 3;  // pixels per (layer, head) strip
    int layer_gap = 2;     // blank pixels between layers
    int view_first = 0;    // first prompt position shown
    int view_count = 0;    // positions shown from view_first; 0 = to the end of the prompt
};

struct HeatmapPalette {
    QRgb dropped = qRgb(250, 250, 252);  // nothing in the bin kept
    QRgb kept = qRgb(24, 92, 200);       // everything in the bin kept
    QRgb window = qRgb(230, 120, 20);    // observation window (always kept)
    QRgb gap = qRgb(255, 255, 255);
    // Difference view: kept for question A only, for B only, for both.
    QRgb a_only = qRgb(214, 40, 40);
    QRgb b_only = qRgb(20, 150, 60);
    QRgb both = qRgb(24, 92, 200);
    // A bin keeping anything is drawn at least at this fraction of the way to `kept`: one kept
    // position in a 400-position bin would otherwise be 0.25% of the blend, i.e. invisible.
    double min_visible = 0.3;
};

// Geometry shared by the renderer and the widget's hit-testing.
struct HeatmapGeometry {
    int n_layers = 0, heads = 0, prompt_len = 0;
    int view_first = 0, view_count = 0;  // resolved view: [view_first, view_first + view_count)
    HeatmapLayout layout;

    int height() const;
    // Positions [first, last) shown by pixel column x.
    std::pair<int, int> positions_at(int x) const;
    // The first column showing position p (clamped into the view).
    int column_of(int p) const;
    // (layer, head) of the strip at row y, or (-1, -1) in a gap or outside.
    std::pair<int, int> strip_at(int y) const;
    int strip_top(int layer, int head) const;
};

HeatmapGeometry heatmap_geometry(const Selection& selection, const HeatmapLayout& layout);
// The same from the shape alone (a view range is clamped into [0, prompt_len)).
HeatmapGeometry heatmap_geometry(int n_layers, int heads, int prompt_len, const HeatmapLayout& layout);

// Linear blend from `dropped` (fraction 0) to `kept` (fraction 1), per channel, rounded.
QRgb retention_shade(double fraction, const HeatmapPalette& palette);
// Where a bin keeping `fraction` of its positions sits on that blend: 0 stays 0, anything kept is
// lifted to at least min_visible (min_visible + (1 - min_visible)·fraction).
double shown_fraction(double fraction, const HeatmapPalette& palette);

// Columns whose positions are all in the observation window get `window`; others the shade of the
// fraction kept (window positions count as kept). Gaps between layers get `gap`.
QImage render_retention_heatmap(const Selection& selection, const HeatmapLayout& layout,
                                const HeatmapPalette& palette = {});

// Kept by `a` only / `b` only / both, over document positions [0, document_tokens) (the part both
// prompts share); other columns get `window`. Each column blends a_only/b_only/both by their counts,
// at the strength of the fraction of its positions either keeps (lifted as above). The selections
// must have the same layers and cache heads (check diff_comparable first).
QImage render_diff_heatmap(const Selection& a, const Selection& b, int document_tokens,
                           const HeatmapLayout& layout, const HeatmapPalette& palette = {});
bool diff_comparable(const Selection& a, const Selection& b);
// Per column of the diff: positions kept by a only, b only, both (one strip; tests and tooltips).
struct DiffCounts {
    int a_only = 0, b_only = 0, both = 0;
};
DiffCounts diff_counts(const HeadSelection& a, const HeadSelection& b, int first, int last);

// The whole prompt in `width` columns and `height` rows: each column shaded by the mean fraction of
// strips keeping its positions (head_counts from kept_head_counts), window columns in `window`.
QImage render_minimap(const std::vector<uint16_t>& head_counts, int strips, int n_prefix, int width,
                      int height, const HeatmapPalette& palette = {});

}  // namespace snapdoc::ui
