// The retention grid as an image: one horizontal strip per (layer, cache head), prompt positions
// along x binned to pixels, each pixel shaded by the fraction of its positions the head keeps.
// A pure function of the selection snapshot (no widgets, no global state), so it runs off the GUI
// thread and is tested pixel by pixel.
#pragma once

#include <QImage>
#include <QRgb>
#include <utility>

#include "engine/kv/selection.h"

namespace snapdoc::ui {

struct HeatmapLayout {
    int width = 512;       // pixels along x (positions are binned to these)
    int strip_height = 3;  // pixels per (layer, head) strip
    int layer_gap = 2;     // blank pixels between layers
};

struct HeatmapPalette {
    QRgb dropped = qRgb(250, 250, 252);  // nothing in the bin kept
    QRgb kept = qRgb(24, 92, 200);       // everything in the bin kept
    QRgb window = qRgb(230, 120, 20);    // observation window (always kept)
    QRgb gap = qRgb(255, 255, 255);
};

// Geometry shared by the renderer and the widget's hit-testing.
struct HeatmapGeometry {
    int n_layers = 0, heads = 0, prompt_len = 0;
    HeatmapLayout layout;

    int height() const;
    // Positions [first, last) shown by pixel column x.
    std::pair<int, int> positions_at(int x) const;
    // The column showing position p.
    int column_of(int p) const;
    // (layer, head) of the strip at row y, or (-1, -1) in a gap or outside.
    std::pair<int, int> strip_at(int y) const;
    int strip_top(int layer, int head) const;
};

HeatmapGeometry heatmap_geometry(const Selection& selection, const HeatmapLayout& layout);

// Linear blend from `dropped` (fraction 0) to `kept` (fraction 1), per channel, rounded.
QRgb retention_shade(double fraction, const HeatmapPalette& palette);

// Columns whose positions are all in the observation window get `window`; others the blend of the
// fraction kept (window positions count as kept). Gaps between layers get `gap`.
QImage render_retention_heatmap(const Selection& selection, const HeatmapLayout& layout,
                                const HeatmapPalette& palette = {});

}  // namespace snapdoc::ui
