// The heatmap at 100K positions: every column keeping anything is visibly shaded (a single kept
// position among 100K too), the zoomed view renders exactly the positions it says, the view
// arithmetic (zoom about an anchor, pan, clamp), the difference of two questions' kept sets, the
// minimap, and the render time at 100K positions × 32 layers × 8 heads (printed for
// docs/RESULTS.md, never asserted).
#include <QElapsedTimer>
#include <QtTest>
#include <algorithm>
#include <numeric>
#include <random>

#include "engine/kv/selection.h"
#include "ui/inspector/heatmap_job.h"
#include "ui/inspector/heatmap_render.h"
#include "ui/inspector/heatmap_view.h"
#include "ui/inspector/selection_analysis.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

QRgb px(const QImage& img, int x, int y) {
    return img.pixel(x, y) | 0xff000000u;
}
QRgb opaque(QRgb c) {
    return c | 0xff000000u;
}

// A synthetic selection of the shape given: each strip keeps `kept` random prefix positions.
std::shared_ptr<Selection> synthetic(int prompt_len, int layers, int heads, int kept, int window, uint32_t seed) {
    auto s = std::make_shared<Selection>();
    s->prompt_len = prompt_len;
    s->window = window;
    s->compressed = true;
    s->cache_heads = heads;
    s->config.budget = kept + window;
    s->config.window = window;
    s->layers.resize(layers);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pos(0, prompt_len - window - 1);
    for (auto& l : s->layers) {
        l.resize(heads);
        for (auto& h : l) {
            std::vector<char> mark(prompt_len - window, 0);
            for (int i = 0; i < kept; ++i) mark[pos(rng)] = 1;
            for (int p = 0; p < prompt_len - window; ++p)
                if (mark[p]) h.kept.push_back(p);
        }
    }
    return s;
}

std::shared_ptr<Selection> one_strip(int prompt_len, std::vector<int32_t> kept, int window = 4) {
    auto s = std::make_shared<Selection>();
    s->prompt_len = prompt_len;
    s->window = window;
    s->compressed = true;
    s->cache_heads = 1;
    s->config.budget = static_cast<int>(kept.size()) + window;
    s->config.window = window;
    s->layers.resize(1);
    s->layers[0].resize(1);
    s->layers[0][0].kept = std::move(kept);
    return s;
}

}  // namespace

class TestHeatmapScale : public QObject {
    Q_OBJECT
private slots:
    void a_single_kept_position_among_100k_is_visible() {
        const HeatmapPalette p;
        const auto s = one_strip(100000, {61234});
        HeatmapLayout layout;
        layout.width = 400;  // 250 positions per column
        layout.strip_height = 1;
        layout.layer_gap = 0;
        const QImage img = render_retention_heatmap(*s, layout, p);
        const HeatmapGeometry g = heatmap_geometry(*s, layout);
        const int x = g.column_of(61234);
        QCOMPARE(x, 61234 / 250);
        // Lifted to min_visible: well away from "dropped" in every channel that differs.
        QCOMPARE(px(img, x, 0), opaque(retention_shade(shown_fraction(1.0 / 250, p), p)));
        QVERIFY(qAbs(qRed(px(img, x, 0)) - qRed(p.dropped)) > 50);
        int shaded = 0;
        for (int i = 0; i + 1 < img.width(); ++i)  // the last column holds the window
            if (px(img, i, 0) != opaque(p.dropped) && px(img, i, 0) != opaque(p.window)) ++shaded;
        QCOMPARE(shaded, 1);
    }

    void zoomed_view_shows_exactly_its_positions() {
        const HeatmapPalette p;
        // Kept: 1000..1009 and 50000. View 995..1015 at one position per column, then 2 per column.
        std::vector<int32_t> kept(10);
        std::iota(kept.begin(), kept.end(), 1000);
        kept.push_back(50000);
        const auto s = one_strip(100000, kept);
        HeatmapLayout layout;
        layout.strip_height = 1;
        layout.layer_gap = 0;
        layout.view_first = 995;
        layout.view_count = 20;
        layout.width = 20;
        QImage img = render_retention_heatmap(*s, layout, p);
        for (int x = 0; x < 20; ++x) {
            const int pos = 995 + x;
            const bool k = pos >= 1000 && pos < 1010;
            QCOMPARE(px(img, x, 0), opaque(k ? p.kept : p.dropped));
        }
        // Fewer positions than pixels: each position spans 3 columns.
        layout.width = 60;
        img = render_retention_heatmap(*s, layout, p);
        const HeatmapGeometry g = heatmap_geometry(*s, layout);
        for (int x = 0; x < 60; ++x) {
            const int pos = g.positions_at(x).first;
            QCOMPARE(pos, 995 + x / 3);
            QCOMPARE(px(img, x, 0), opaque(pos >= 1000 && pos < 1010 ? p.kept : p.dropped));
        }
        // The view is clamped into the prompt; its end reaches the window.
        layout.view_first = 99990;
        layout.view_count = 100;
        layout.width = 10;
        const HeatmapGeometry end = heatmap_geometry(*s, layout);
        QCOMPARE(end.view_first, 99990);
        QCOMPARE(end.view_count, 10);
        img = render_retention_heatmap(*s, layout, p);
        QCOMPARE(px(img, 9, 0), opaque(p.window));
        QCOMPARE(px(img, 0, 0), opaque(p.dropped));
    }

    void merge_walk_matches_a_per_position_count() {
        // Random selections, random views and widths: every column's shade equals the one computed
        // from a plain per-position count.
        const HeatmapPalette p;
        std::mt19937 rng(3);
        for (int trial = 0; trial < 40; ++trial) {
            const int L = 50 + static_cast<int>(rng() % 5000);
            const auto s = synthetic(L, 1, 1, static_cast<int>(rng() % (L / 2)) + 1, 8, rng());
            HeatmapLayout layout;
            layout.strip_height = 1;
            layout.layer_gap = 0;
            layout.width = 1 + static_cast<int>(rng() % 700);
            layout.view_first = static_cast<int>(rng() % L);
            layout.view_count = 1 + static_cast<int>(rng() % L);
            const QImage img = render_retention_heatmap(*s, layout, p);
            const HeatmapGeometry g = heatmap_geometry(*s, layout);
            std::vector<char> kept(L, 0);
            for (int32_t q : s->layers[0][0].kept) kept[q] = 1;
            for (int q = s->n_prefix(); q < L; ++q) kept[q] = 1;
            for (int x = 0; x < g.layout.width; ++x) {
                const auto [a, b0] = g.positions_at(x);
                const int b = std::min(b0, L);
                QVERIFY(a >= g.view_first && b <= g.view_first + g.view_count);
                QRgb want;
                if (a >= s->n_prefix()) {
                    want = p.window;
                } else {
                    int n = 0;
                    for (int q = a; q < b; ++q) n += kept[q];
                    want = retention_shade(shown_fraction(static_cast<double>(n) / (b - a), p), p);
                }
                QVERIFY2(px(img, x, 0) == opaque(want),
                         qPrintable(QString("trial %1 column %2 [%3,%4)").arg(trial).arg(x).arg(a).arg(b)));
                QVERIFY(g.positions_at(g.column_of(a)).first <= a);
            }
        }
    }

    void view_zoom_pan_clamp() {
        HeatmapView v;
        v.set_total(100000);
        QCOMPARE(v.first(), 0);
        QCOMPARE(v.count(), 100000);
        QVERIFY(!v.zoomed());
        v.zoom(4.0, 0.5);  // about the middle
        QCOMPARE(v.count(), 25000);
        QCOMPARE(v.first(), 37500);
        v.zoom(2.0, 0.0);  // the left edge stays
        QCOMPARE(v.first(), 37500);
        QCOMPARE(v.count(), 12500);
        v.pan(-1000000);
        QCOMPARE(v.first(), 0);
        v.pan(1000000);
        QCOMPARE(v.end(), 100000);
        v.zoom(1e9);
        QCOMPARE(v.count(), HeatmapView::kMinCount);
        v.zoom(1e-9);
        QCOMPARE(v.count(), 100000);
        QCOMPARE(v.first(), 0);
        v.show(90000, 5000);
        v.center_on(10);
        QCOMPARE(v.first(), 0);
        QCOMPARE(v.count(), 5000);
        v.set_total(98000);  // still fits: kept
        QCOMPARE(v.count(), 5000);
        v.set_total(3000);  // does not: the whole prompt
        QCOMPARE(v.count(), 3000);
        QVERIFY(!v.zoomed());
    }

    void diff_of_two_questions() {
        const HeatmapPalette p;
        // Prefix 0..15 of a 20-position prompt, 16 document tokens. A keeps 0-3 and 8-9, B keeps
        // 2-5 and 8-9. Columns of 2 positions.
        const auto a = one_strip(20, {0, 1, 2, 3, 8, 9});
        const auto b = one_strip(20, {2, 3, 4, 5, 8, 9});
        const DiffCounts d = diff_counts(a->layers[0][0], b->layers[0][0], 0, 16);
        QCOMPARE(d.a_only, 2);
        QCOMPARE(d.b_only, 2);
        QCOMPARE(d.both, 4);
        HeatmapLayout layout;
        layout.width = 10;
        layout.strip_height = 1;
        layout.layer_gap = 0;
        const QImage img = render_diff_heatmap(*a, *b, 16, layout, p);
        QCOMPARE(img.width(), 10);
        QCOMPARE(px(img, 0, 0), opaque(p.a_only));  // 0-1: A only, both positions -> full strength
        QCOMPARE(px(img, 1, 0), opaque(p.both));    // 2-3
        QCOMPARE(px(img, 2, 0), opaque(p.b_only));  // 4-5
        QCOMPARE(px(img, 3, 0), opaque(p.dropped)); // 6-7: neither
        QCOMPARE(px(img, 4, 0), opaque(p.both));    // 8-9
        QCOMPARE(px(img, 8, 0), opaque(p.window));  // 16-17: question, not compared
        // Half a column kept by A only: lifted, in A's hue.
        const auto c = one_strip(20, {0});
        const QImage half = render_diff_heatmap(*c, *one_strip(20, {}), 16, layout, p);
        const double f = shown_fraction(0.5, p);
        auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
        QCOMPARE(px(half, 0, 0), opaque(qRgb(mix(qRed(p.dropped), qRed(p.a_only)),
                                             mix(qGreen(p.dropped), qGreen(p.a_only)),
                                             mix(qBlue(p.dropped), qBlue(p.a_only)))));
        // Shapes differ: nothing to draw.
        auto other = synthetic(20, 2, 1, 3, 4, 1);
        QVERIFY(!diff_comparable(*a, *other));
        QVERIFY(render_diff_heatmap(*a, *other, 16, layout, p).isNull());
    }

    void diff_matches_a_per_position_reference() {
        // Random pairs of selections (different windows, one sometimes uncompressed), random views
        // and widths: each column equals the blend computed position by position.
        const HeatmapPalette p;
        std::mt19937 rng(5);
        for (int trial = 0; trial < 40; ++trial) {
            const int L = 60 + static_cast<int>(rng() % 3000);
            auto a = synthetic(L, 1, 1, 1 + static_cast<int>(rng() % (L / 3)), 4 + static_cast<int>(rng() % 20), rng());
            auto b = synthetic(L, 1, 1, 1 + static_cast<int>(rng() % (L / 3)), 4 + static_cast<int>(rng() % 20), rng());
            if (trial % 7 == 3) a->compressed = false;
            const int doc = L - 24 - static_cast<int>(rng() % 10);
            HeatmapLayout layout;
            layout.strip_height = 1;
            layout.layer_gap = 0;
            layout.width = 1 + static_cast<int>(rng() % 600);
            layout.view_first = static_cast<int>(rng() % L);
            layout.view_count = 1 + static_cast<int>(rng() % L);
            const QImage img = render_diff_heatmap(*a, *b, doc, layout, p);
            const HeatmapGeometry g = heatmap_geometry(*b, layout);
            auto keeps = [](const Selection& s, int q) {
                if (!s.compressed || q >= s.n_prefix()) return true;
                return std::binary_search(s.layers[0][0].kept.begin(), s.layers[0][0].kept.end(), q);
            };
            for (int x = 0; x < g.layout.width; ++x) {
                const auto [first, b0] = g.positions_at(x);
                const int last = std::min(b0, doc);
                QRgb want = p.window;
                if (first < doc) {
                    DiffCounts d;
                    for (int q = first; q < last; ++q) {
                        const bool ka = keeps(*a, q), kb = keeps(*b, q);
                        d.both += ka && kb;
                        d.a_only += ka && !kb;
                        d.b_only += kb && !ka;
                    }
                    const int any = d.a_only + d.b_only + d.both;
                    if (any == 0) {
                        want = p.dropped;
                    } else {
                        auto ch = [&](int shift) {
                            auto cv = [shift](QRgb v) { return static_cast<int>((v >> shift) & 0xff); };
                            return (cv(p.a_only) * d.a_only + cv(p.b_only) * d.b_only + cv(p.both) * d.both + any / 2) /
                                   any;
                        };
                        const double f = shown_fraction(static_cast<double>(any) / (last - first), p);
                        auto mix = [f](int u, int v) { return static_cast<int>(std::lround(u + (v - u) * f)); };
                        want = qRgb(mix(qRed(p.dropped), ch(16)), mix(qGreen(p.dropped), ch(8)),
                                    mix(qBlue(p.dropped), ch(0)));
                    }
                }
                QVERIFY2(px(img, x, 0) == opaque(want),
                         qPrintable(QString("trial %1 column %2 [%3,%4)").arg(trial).arg(x).arg(first).arg(last)));
            }
        }
    }

    void minimap_sums_all_strips() {
        const HeatmapPalette p;
        std::vector<uint16_t> counts(100, 0);
        counts[10] = 4;  // all 4 strips keep position 10
        counts[50] = 1;  // one strip keeps 50
        for (int i = 96; i < 100; ++i) counts[i] = 4;  // window
        const QImage img = render_minimap(counts, 4, 96, 100, 3, p);
        QCOMPARE(img.size(), QSize(100, 3));
        QCOMPARE(px(img, 10, 1), opaque(p.kept));
        QCOMPARE(px(img, 50, 1), opaque(retention_shade(shown_fraction(0.25, p), p)));
        QCOMPARE(px(img, 20, 1), opaque(p.dropped));
        QCOMPARE(px(img, 98, 1), opaque(p.window));
    }

    void render_time_at_100k_positions_32_layers_8_heads() {
        // 100K positions × 32 layers × 8 KV heads, budget 4096 (about 4%), a 1000-pixel-wide grid
        // with 2-px strips: the shape docs/RESULTS.md quotes. Printed, never asserted (shared machine).
        const auto s = synthetic(100000, 32, 8, 4064, 32, 11);
        SelectionSnapshot snap;
        snap.selection = s;
        snap.document_tokens = 99968;
        HeatmapRequest req;
        req.snapshot = snap;
        req.layout.width = 1000;
        req.layout.strip_height = 2;
        req.layout.layer_gap = 1;
        req.minimap_width = 1000;
        std::vector<double> whole, zoomed, diff, job;
        for (int i = 0; i < 5; ++i) {
            QElapsedTimer t;
            t.start();
            const HeatmapResult r = render_heatmap(req);
            job.push_back(t.nsecsElapsed() / 1e6);
            whole.push_back(r.render_ms);
            QCOMPARE(r.image.height(), 32 * 8 * 2 + 31);
        }
        HeatmapRequest zr = req;
        zr.layout.view_first = 40000;
        zr.layout.view_count = 2000;
        for (int i = 0; i < 5; ++i) zoomed.push_back(render_heatmap(zr).render_ms);
        HeatmapRequest dr = req;
        dr.compare.serial = 1;
        dr.compare.own = synthetic(100000, 32, 8, 4064, 32, 12);
        for (int i = 0; i < 5; ++i) {
            const HeatmapResult r = render_heatmap(dr);
            QVERIFY(r.diff);
            diff.push_back(r.render_ms);
        }
        auto med = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        qInfo("heatmap render, 100K positions x 32 layers x 8 heads, 1000 px: whole prompt %.1f ms, zoomed "
              "(2000 positions) %.1f ms, difference view %.1f ms; whole job (image + head counts + minimap) "
              "%.1f ms (medians of 5)",
              med(whole), med(zoomed), med(diff), med(job));
    }
};

QTEST_GUILESS_MAIN(TestHeatmapScale)
#include "test_heatmap_scale.moc"
