#include "ui/inspector/heatmap_render.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace snapdoc::ui {

int HeatmapGeometry::height() const {
    if (n_layers <= 0 || heads <= 0) return 0;
    return n_layers * heads * layout.strip_height + (n_layers - 1) * layout.layer_gap;
}

std::pair<int, int> HeatmapGeometry::positions_at(int x) const {
    const int w = std::max(1, layout.width);
    x = std::clamp(x, 0, w - 1);
    // Integer bins: column x shows [x·L/w, (x+1)·L/w); when L < w a position spans several columns.
    const int first = static_cast<int>(static_cast<int64_t>(x) * prompt_len / w);
    const int last = static_cast<int>(static_cast<int64_t>(x + 1) * prompt_len / w);
    return {first, std::max(first + 1, last)};
}

int HeatmapGeometry::column_of(int p) const {
    const int w = std::max(1, layout.width);
    if (prompt_len <= 0) return 0;
    p = std::clamp(p, 0, prompt_len - 1);
    // The first column whose range contains p: smallest x with (x+1)·L/w > p.
    int x = static_cast<int>((static_cast<int64_t>(p) * w) / prompt_len);
    while (x > 0 && positions_at(x - 1).second > p) --x;
    while (x < w - 1 && positions_at(x).second <= p) ++x;
    return x;
}

std::pair<int, int> HeatmapGeometry::strip_at(int y) const {
    const int per_layer = heads * layout.strip_height + layout.layer_gap;
    if (y < 0 || per_layer <= 0 || y >= height()) return {-1, -1};
    const int layer = y / per_layer;
    const int within = y - layer * per_layer;
    if (within >= heads * layout.strip_height) return {-1, -1};
    return {layer, within / layout.strip_height};
}

int HeatmapGeometry::strip_top(int layer, int head) const {
    return layer * (heads * layout.strip_height + layout.layer_gap) + head * layout.strip_height;
}

HeatmapGeometry heatmap_geometry(const Selection& s, const HeatmapLayout& layout) {
    HeatmapGeometry g;
    g.n_layers = static_cast<int>(s.layers.size());
    g.heads = s.cache_heads;
    g.prompt_len = s.prompt_len;
    g.layout = layout;
    g.layout.width = std::max(1, layout.width);
    g.layout.strip_height = std::max(1, layout.strip_height);
    g.layout.layer_gap = std::max(0, layout.layer_gap);
    return g;
}

QRgb retention_shade(double fraction, const HeatmapPalette& p) {
    const double f = std::clamp(fraction, 0.0, 1.0);
    auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
    return qRgb(mix(qRed(p.dropped), qRed(p.kept)), mix(qGreen(p.dropped), qGreen(p.kept)),
                mix(qBlue(p.dropped), qBlue(p.kept)));
}

QImage render_retention_heatmap(const Selection& s, const HeatmapLayout& layout,
                                const HeatmapPalette& palette) {
    const HeatmapGeometry g = heatmap_geometry(s, layout);
    const int w = g.layout.width, h = g.height();
    if (h <= 0 || s.prompt_len <= 0) return {};
    QImage img(w, h, QImage::Format_RGB32);
    img.fill(palette.gap);

    const int n_prefix = s.n_prefix();
    std::vector<std::pair<int, int>> cols(w);
    for (int x = 0; x < w; ++x) cols[x] = g.positions_at(x);
    // cum[p] = kept positions before p in the current strip (window positions count as kept).
    std::vector<int> mark(s.prompt_len + 1), cum(s.prompt_len + 1);
    std::vector<QRgb> row(w);
    for (int l = 0; l < g.n_layers; ++l)
        for (int c = 0; c < g.heads; ++c) {
            std::fill(mark.begin(), mark.end(), 0);
            for (int32_t p : s.layers[l][c].kept)
                if (p >= 0 && p < n_prefix) mark[p] = 1;
            for (int p = std::max(0, n_prefix); p < s.prompt_len; ++p) mark[p] = 1;
            cum[0] = 0;
            for (int p = 0; p < s.prompt_len; ++p) cum[p + 1] = cum[p] + mark[p];
            for (int x = 0; x < w; ++x) {
                const auto [a, b] = cols[x];
                if (a >= n_prefix) {
                    row[x] = palette.window;
                } else {
                    const int hi = std::min(b, s.prompt_len);
                    row[x] = retention_shade(static_cast<double>(cum[hi] - cum[a]) / (hi - a), palette);
                }
            }
            const int top = g.strip_top(l, c);
            for (int y = top; y < top + g.layout.strip_height; ++y)
                std::copy(row.begin(), row.end(), reinterpret_cast<QRgb*>(img.scanLine(y)));
        }
    return img;
}

}  // namespace snapdoc::ui
