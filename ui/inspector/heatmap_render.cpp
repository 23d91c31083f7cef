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
    // Integer bins: column x shows [x·V/w, (x+1)·V/w) of the view; when V < w a position spans
    // several columns.
    const int first = view_first + static_cast<int>(static_cast<int64_t>(x) * view_count / w);
    const int last = view_first + static_cast<int>(static_cast<int64_t>(x + 1) * view_count / w);
    return {first, std::max(first + 1, last)};
}

int HeatmapGeometry::column_of(int p) const {
    const int w = std::max(1, layout.width);
    if (view_count <= 0) return 0;
    const int q = std::clamp(p, view_first, view_first + view_count - 1) - view_first;
    // The first column whose range contains p: start from the proportional guess and correct it.
    int x = static_cast<int>((static_cast<int64_t>(q) * w) / view_count);
    const int pp = q + view_first;
    while (x > 0 && positions_at(x - 1).second > pp) --x;
    while (x < w - 1 && positions_at(x).second <= pp) ++x;
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

HeatmapGeometry heatmap_geometry(int n_layers, int heads, int prompt_len, const HeatmapLayout& layout) {
    HeatmapGeometry g;
    g.n_layers = n_layers;
    g.heads = heads;
    g.prompt_len = prompt_len;
    g.layout = layout;
    g.layout.width = std::max(1, layout.width);
    g.layout.strip_height = std::max(1, layout.strip_height);
    g.layout.layer_gap = std::max(0, layout.layer_gap);
    const int L = std::max(0, prompt_len);
    g.view_first = std::clamp(layout.view_first, 0, std::max(0, L - 1));
    const int rest = L - g.view_first;
    g.view_count = layout.view_count > 0 ? std::min(layout.view_count, rest) : rest;
    g.layout.view_first = g.view_first;
    g.layout.view_count = g.view_count;
    return g;
}

HeatmapGeometry heatmap_geometry(const Selection& s, const HeatmapLayout& layout) {
    return heatmap_geometry(static_cast<int>(s.layers.size()), s.cache_heads, s.prompt_len, layout);
}

QRgb retention_shade(double fraction, const HeatmapPalette& p) {
    const double f = std::clamp(fraction, 0.0, 1.0);
    auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
    return qRgb(mix(qRed(p.dropped), qRed(p.kept)), mix(qGreen(p.dropped), qGreen(p.kept)),
                mix(qBlue(p.dropped), qBlue(p.kept)));
}

double shown_fraction(double fraction, const HeatmapPalette& p) {
    if (!(fraction > 0)) return 0;
    const double lo = std::clamp(p.min_visible, 0.0, 1.0);
    return lo + (1 - lo) * std::min(fraction, 1.0);
}

namespace {

struct Columns {
    std::vector<int> first, last;  // positions [first, last) per column
    std::vector<int> window;       // window positions among them
};

Columns columns_of(const HeatmapGeometry& g, int n_prefix) {
    const int w = g.layout.width;
    Columns c;
    c.first.resize(w);
    c.last.resize(w);
    c.window.resize(w);
    for (int x = 0; x < w; ++x) {
        const auto [a, b] = g.positions_at(x);
        c.first[x] = a;
        c.last[x] = std::min(b, g.prompt_len);
        c.window[x] = std::max(0, c.last[x] - std::max(a, n_prefix));
    }
    return c;
}

// Kept positions of `kept` (ascending) per column of the view. Columns are ascending and each
// position falls in one column when the view has at least one position per pixel, so one merge
// walk does it; a view with fewer positions than pixels repeats a position over several columns.
void count_per_column(const std::vector<int32_t>& kept, int n_prefix, const Columns& cols, int view_first,
                      int view_end, std::vector<int>& out) {
    const int w = static_cast<int>(cols.first.size());
    std::fill(out.begin(), out.end(), 0);
    const int end = std::min(view_end, n_prefix);
    auto it = std::lower_bound(kept.begin(), kept.end(), view_first);
    if (view_end - view_first >= w) {
        int x = 0;
        for (; it != kept.end() && *it < end; ++it) {
            while (x < w - 1 && *it >= cols.last[x]) ++x;
            ++out[x];
        }
    } else {
        int x = 0;
        for (; it != kept.end() && *it < end; ++it) {
            while (x < w && cols.first[x] < *it) ++x;
            for (int y = x; y < w && cols.first[y] == *it; ++y) out[y] = 1;
        }
    }
}

QRgb blend(QRgb from, QRgb to, double f) {
    auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
    return qRgb(mix(qRed(from), qRed(to)), mix(qGreen(from), qGreen(to)), mix(qBlue(from), qBlue(to)));
}

void fill_strip(QImage& img, int top, int height, const std::vector<QRgb>& row) {
    for (int y = top; y < top + height; ++y)
        std::copy(row.begin(), row.end(), reinterpret_cast<QRgb*>(img.scanLine(y)));
}

}  // namespace

QImage render_retention_heatmap(const Selection& s, const HeatmapLayout& layout,
                                const HeatmapPalette& palette) {
    const HeatmapGeometry g = heatmap_geometry(s, layout);
    const int w = g.layout.width, h = g.height();
    if (h <= 0 || s.prompt_len <= 0 || g.view_count <= 0) return {};
    QImage img(w, h, QImage::Format_RGB32);
    img.fill(palette.gap);

    const int n_prefix = s.n_prefix();
    const int v0 = g.view_first, v1 = g.view_first + g.view_count;
    const Columns cols = columns_of(g, n_prefix);
    std::vector<int> count(w);
    std::vector<QRgb> row(w);
    // 256 levels of the blend per distinct fraction would be exact too, but the fraction has as
    // many values as a column has positions; the blend is cheap enough per pixel (< 1 ms per 256K).
    for (int l = 0; l < g.n_layers; ++l)
        for (int c = 0; c < g.heads; ++c) {
            const auto& kept = s.layers[l][c].kept;
            if (s.compressed)
                count_per_column(kept, n_prefix, cols, v0, v1, count);
            for (int x = 0; x < w; ++x) {
                const int a = cols.first[x], b = cols.last[x];
                if (a >= n_prefix) {
                    row[x] = palette.window;
                } else if (!s.compressed) {
                    row[x] = palette.kept;
                } else {
                    const int size = std::max(1, b - a);
                    const double f = static_cast<double>(count[x] + cols.window[x]) / size;
                    row[x] = retention_shade(shown_fraction(f, palette), palette);
                }
            }
            fill_strip(img, g.strip_top(l, c), g.layout.strip_height, row);
        }
    return img;
}

bool diff_comparable(const Selection& a, const Selection& b) {
    return a.layers.size() == b.layers.size() && a.cache_heads == b.cache_heads;
}

namespace {
// Whether a selection keeps position p (ascending kept prefix positions, then the window).
struct KeptWalk {
    const std::vector<int32_t>& kept;
    int n_prefix;
    bool all;  // uncompressed: everything kept
    std::size_t i = 0;
    bool keeps(int p) {
        if (all || p >= n_prefix) return true;
        while (i < kept.size() && kept[i] < p) ++i;
        return i < kept.size() && kept[i] == p;
    }
};
}  // namespace

DiffCounts diff_counts(const HeadSelection& a, const HeadSelection& b, int first, int last) {
    DiffCounts d;
    // Merge of the two ascending lists restricted to [first, last).
    auto ia = std::lower_bound(a.kept.begin(), a.kept.end(), first);
    auto ib = std::lower_bound(b.kept.begin(), b.kept.end(), first);
    while (true) {
        const bool ha = ia != a.kept.end() && *ia < last, hb = ib != b.kept.end() && *ib < last;
        if (!ha && !hb) break;
        if (ha && hb && *ia == *ib) {
            ++d.both, ++ia, ++ib;
        } else if (ha && (!hb || *ia < *ib)) {
            ++d.a_only, ++ia;
        } else {
            ++d.b_only, ++ib;
        }
    }
    return d;
}

QImage render_diff_heatmap(const Selection& a, const Selection& b, int document_tokens,
                           const HeatmapLayout& layout, const HeatmapPalette& palette) {
    const HeatmapGeometry g = heatmap_geometry(b, layout);
    const int w = g.layout.width, h = g.height();
    if (h <= 0 || b.prompt_len <= 0 || g.view_count <= 0 || !diff_comparable(a, b)) return {};
    QImage img(w, h, QImage::Format_RGB32);
    img.fill(palette.gap);
    const int doc = std::clamp(document_tokens, 0, std::min(a.prompt_len, b.prompt_len));
    const Columns cols = columns_of(g, b.n_prefix());
    const int v0 = g.view_first, v1 = g.view_first + g.view_count;
    // Below `sparse_end` both selections are plain kept lists: one merge walk per strip puts each
    // kept position in its column, O(kept in view). Columns reaching past it (a window, or an
    // uncompressed selection) are counted position by position.
    const bool sparse = a.compressed && b.compressed;
    const int sparse_end = sparse ? std::min({v1, doc, a.n_prefix(), b.n_prefix()}) : v0;
    const bool one_per_column = g.view_count >= w;
    std::vector<int> ca(w), cb(w), cboth(w);
    std::vector<uint8_t> mark(one_per_column ? std::max(0, sparse_end - v0) : 0, 0);
    std::vector<QRgb> row(w);
    for (int l = 0; l < g.n_layers; ++l)
        for (int c = 0; c < g.heads; ++c) {
            std::fill(ca.begin(), ca.end(), 0);
            std::fill(cb.begin(), cb.end(), 0);
            std::fill(cboth.begin(), cboth.end(), 0);
            const auto& ka = a.layers[l][c].kept;
            const auto& kb = b.layers[l][c].kept;
            auto ia = std::lower_bound(ka.begin(), ka.end(), v0);
            auto ib = std::lower_bound(kb.begin(), kb.end(), v0);
            int x = 0;
            auto add = [&](int p, std::vector<int>& counts) {
                if (one_per_column) {
                    while (x < w - 1 && p >= cols.last[x]) ++x;
                    ++counts[x];
                } else {
                    while (x < w && cols.first[x] < p) ++x;
                    for (int y = x; y < w && cols.first[y] == p; ++y) counts[y] = 1;
                }
            };
            if (one_per_column) {
                // Marks instead of a merge: the merge's branches mispredict on every other step (it
                // doubled the time at 100K positions); here A is counted and marked, B counted and
                // looked up, then A's marks are cleared. a_only/b_only follow from the totals.
                auto ea = ia, eb = ib;
                for (; ea != ka.end() && *ea < sparse_end; ++ea) {
                    add(*ea, ca);
                    mark[*ea - v0] = 1;
                }
                x = 0;
                for (; eb != kb.end() && *eb < sparse_end; ++eb) {
                    while (x < w - 1 && *eb >= cols.last[x]) ++x;
                    ++cb[x];
                    cboth[x] += mark[*eb - v0];
                }
                for (auto i = ia; i != ea; ++i) mark[*i - v0] = 0;
                for (int y = 0; y < w; ++y) {
                    ca[y] -= cboth[y];
                    cb[y] -= cboth[y];
                }
            } else {
                while (true) {
                    const bool ha = ia != ka.end() && *ia < sparse_end, hb = ib != kb.end() && *ib < sparse_end;
                    if (!ha && !hb) break;
                    if (ha && hb && *ia == *ib) {
                        add(*ia, cboth), ++ia, ++ib;
                    } else if (ha && (!hb || *ia < *ib)) {
                        add(*ia, ca), ++ia;
                    } else {
                        add(*ib, cb), ++ib;
                    }
                }
            }
            KeptWalk wa{ka, a.n_prefix(), !a.compressed};
            KeptWalk wb{kb, b.n_prefix(), !b.compressed};
            for (int x2 = 0; x2 < w; ++x2) {
                const int first = cols.first[x2], last = std::min(cols.last[x2], doc);
                if (first >= doc) {
                    row[x2] = palette.window;
                    continue;
                }
                DiffCounts d{ca[x2], cb[x2], cboth[x2]};
                if (last > sparse_end) {
                    // The part of the column the walk did not cover.
                    if (!one_per_column) d = {};
                    for (int p = std::max(first, sparse_end); p < last; ++p) {
                        const bool in_a = wa.keeps(p), in_b = wb.keeps(p);
                        d.both += in_a && in_b;
                        d.a_only += in_a && !in_b;
                        d.b_only += in_b && !in_a;
                    }
                }
                const int any = d.a_only + d.b_only + d.both;
                if (any == 0) {
                    row[x2] = palette.dropped;
                    continue;
                }
                auto ch = [&](int shift) {
                    auto cv = [shift](QRgb v) { return static_cast<int>((v >> shift) & 0xff); };
                    return (cv(palette.a_only) * d.a_only + cv(palette.b_only) * d.b_only +
                            cv(palette.both) * d.both + any / 2) /
                           any;
                };
                const QRgb hue = qRgb(ch(16), ch(8), ch(0));  // red, green, blue bytes of a QRgb
                const double f = shown_fraction(static_cast<double>(any) / std::max(1, last - first), palette);
                row[x2] = blend(palette.dropped, hue, f);
            }
            fill_strip(img, g.strip_top(l, c), g.layout.strip_height, row);
        }
    return img;
}

QImage render_minimap(const std::vector<uint16_t>& counts, int strips, int n_prefix, int width, int height,
                      const HeatmapPalette& palette) {
    const int L = static_cast<int>(counts.size());
    if (L <= 0 || width <= 0 || height <= 0 || strips <= 0) return {};
    HeatmapLayout layout;
    layout.width = width;
    const HeatmapGeometry g = heatmap_geometry(1, 1, L, layout);
    std::vector<QRgb> row(width);
    for (int x = 0; x < width; ++x) {
        const auto [a, b0] = g.positions_at(x);
        const int b = std::min(b0, L);
        if (a >= n_prefix) {
            row[x] = palette.window;
            continue;
        }
        int64_t sum = 0;
        for (int p = a; p < b; ++p) sum += counts[p];
        const double f = static_cast<double>(sum) / (static_cast<double>(strips) * std::max(1, b - a));
        row[x] = retention_shade(shown_fraction(f, palette), palette);
    }
    QImage img(width, height, QImage::Format_RGB32);
    fill_strip(img, 0, height, row);
    return img;
}

}  // namespace snapdoc::ui
