// The retention heatmap as a pure function (exact pixels on small synthetic selections), its
// geometry (hit-testing), and the inspector's selection arithmetic.
#include <QtTest>
#include <cmath>
#include <numeric>

#include "engine/kv/selection.h"
#include "ui/inspector/heatmap_render.h"
#include "ui/inspector/selection_analysis.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

// 2 layers × 2 cache heads, prompt of 8 with a window of 2 (prefix = positions 0..5).
Selection small_selection() {
    Selection s;
    s.prompt_len = 8;
    s.window = 2;
    s.compressed = true;
    s.cache_heads = 2;
    s.group = 1;
    s.config.budget = 6;
    s.config.window = 2;
    s.layers.resize(2);
    for (auto& l : s.layers) l.resize(2);
    s.layers[0][0].kept = {0, 1, 2, 3};
    s.layers[0][1].kept = {};
    s.layers[1][0].kept = {0, 2, 4};
    s.layers[1][1].kept = {0, 1, 2, 3, 4, 5};
    for (auto& l : s.layers)
        for (auto& h : l) h.pooled = {6, 5, 4, 3, 2, 1};
    return s;
}

QRgb px(const QImage& img, int x, int y) {
    return img.pixel(x, y) | 0xff000000u;
}

}  // namespace

class TestHeatmapRender : public QObject {
    Q_OBJECT
private slots:
    void shade_is_a_linear_blend() {
        const HeatmapPalette p;
        QCOMPARE(retention_shade(0.0, p), p.dropped);
        QCOMPARE(retention_shade(1.0, p), p.kept);
        // dropped (250,250,252) -> kept (24,92,200): halfway, rounded per channel.
        QCOMPARE(retention_shade(0.5, p), qRgb(137, 171, 226));
        QCOMPARE(retention_shade(-1.0, p), p.dropped);  // clamped
        QCOMPARE(retention_shade(2.0, p), p.kept);
    }

    void exact_pixels_of_a_known_selection() {
        const Selection s = small_selection();
        const HeatmapPalette p;
        HeatmapLayout layout;
        layout.width = 4;  // columns show positions [0,2) [2,4) [4,6) [6,8)
        layout.strip_height = 1;
        layout.layer_gap = 1;
        const QImage img = render_retention_heatmap(s, layout, p);
        QCOMPARE(img.width(), 4);
        QCOMPARE(img.height(), 5);  // 2 strips, gap, 2 strips
        // Half kept: drawn at min_visible + (1 - min_visible)·0.5 of the blend.
        const QRgb half = retention_shade(shown_fraction(0.5, p), p);
        const QRgb expected[5][4] = {
            {p.kept, p.kept, p.dropped, p.window},        // L0 H0 keeps 0..3
            {p.dropped, p.dropped, p.dropped, p.window},  // L0 H1 keeps nothing
            {p.gap, p.gap, p.gap, p.gap},                 // between layers
            {half, half, half, p.window},                 // L1 H0 keeps 0, 2, 4
            {p.kept, p.kept, p.kept, p.window},           // L1 H1 keeps everything
        };
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 4; ++x)
                QVERIFY2(px(img, x, y) == (expected[y][x] | 0xff000000u),
                         qPrintable(QString("pixel (%1,%2) = %3").arg(x).arg(y).arg(px(img, x, y), 8, 16)));
    }

    void taller_strips_repeat_rows() {
        const Selection s = small_selection();
        HeatmapLayout layout;
        layout.width = 4;
        layout.strip_height = 3;
        layout.layer_gap = 2;
        const QImage img = render_retention_heatmap(s, layout);
        QCOMPARE(img.height(), 2 * 2 * 3 + 2);
        for (int y = 0; y < 3; ++y) QCOMPARE(px(img, 0, y), px(img, 0, 0));
        QCOMPARE(px(img, 0, 6), HeatmapPalette{}.gap | 0xff000000u);
    }

    void short_prompts_span_several_columns() {
        const Selection s = small_selection();
        HeatmapLayout layout;
        layout.width = 16;  // two columns per position
        layout.strip_height = 1;
        layout.layer_gap = 0;
        const QImage img = render_retention_heatmap(s, layout);
        const HeatmapPalette p;
        // L1 H0 keeps 0, 2, 4: columns 0-1 kept, 2-3 dropped, 4-5 kept...
        const int y = 2;
        QCOMPARE(px(img, 0, y), p.kept | 0xff000000u);
        QCOMPARE(px(img, 1, y), p.kept | 0xff000000u);
        QCOMPARE(px(img, 2, y), p.dropped | 0xff000000u);
        QCOMPARE(px(img, 3, y), p.dropped | 0xff000000u);
        QCOMPARE(px(img, 4, y), p.kept | 0xff000000u);
        QCOMPARE(px(img, 15, y), p.window | 0xff000000u);
    }

    void uncompressed_selection_is_all_kept() {
        Selection s = small_selection();
        s.compressed = false;
        for (auto& l : s.layers)
            for (auto& h : l) {
                h.kept.resize(6);
                std::iota(h.kept.begin(), h.kept.end(), 0);
            }
        HeatmapLayout layout;
        layout.width = 8;
        layout.strip_height = 1;
        layout.layer_gap = 0;
        const QImage img = render_retention_heatmap(s, layout);
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < 6; ++x) QCOMPARE(px(img, x, y), HeatmapPalette{}.kept | 0xff000000u);
        QCOMPARE(kept_fraction(s), 1.0);
    }

    void one_pixel_per_position_counts_every_kept_position() {
        // A real engine selection on random scores: with width == prompt length every pixel is
        // exactly kept, dropped or window, and the kept pixels per strip equal the kept count.
        WindowScores ws;
        ws.prompt_len = 300;
        ws.window = 16;
        ws.n_layers = 3;
        ws.n_heads = 4;
        ws.n_kv_heads = 2;
        uint32_t x = 7;
        ws.layers.resize(3);
        for (auto& l : ws.layers) {
            l.resize(static_cast<std::size_t>(ws.n_heads) * ws.n_prefix());
            for (float& v : l) v = static_cast<float>((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f;
        }
        SnapKvConfig c;
        c.budget = 64;
        c.window = 16;
        const auto sel = select_positions(c, ws);
        HeatmapLayout layout;
        layout.width = ws.prompt_len;
        layout.strip_height = 1;
        layout.layer_gap = 0;
        const QImage img = render_retention_heatmap(*sel, layout);
        const HeatmapPalette p;
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 2; ++h) {
                const int y = l * 2 + h;
                int kept = 0, window = 0;
                for (int i = 0; i < img.width(); ++i) {
                    const QRgb v = px(img, i, y);
                    if (v == (p.kept | 0xff000000u))
                        ++kept;
                    else if (v == (p.window | 0xff000000u))
                        ++window;
                    else
                        QCOMPARE(v, p.dropped | 0xff000000u);
                }
                QCOMPARE(kept, static_cast<int>(sel->layers[l][h].kept.size()));
                QCOMPARE(window, 16);
            }
    }

    void geometry_hit_testing() {
        const Selection s = small_selection();
        HeatmapLayout layout;
        layout.width = 4;
        layout.strip_height = 2;
        layout.layer_gap = 1;
        const HeatmapGeometry g = heatmap_geometry(s, layout);
        QCOMPARE(g.height(), 9);
        QCOMPARE(g.strip_at(0), std::make_pair(0, 0));
        QCOMPARE(g.strip_at(3), std::make_pair(0, 1));
        QCOMPARE(g.strip_at(4), std::make_pair(-1, -1));  // gap
        QCOMPARE(g.strip_at(5), std::make_pair(1, 0));
        QCOMPARE(g.strip_at(8), std::make_pair(1, 1));
        QCOMPARE(g.strip_at(9), std::make_pair(-1, -1));
        QCOMPARE(g.positions_at(1), std::make_pair(2, 4));
        for (int p = 0; p < 8; ++p) {
            const auto [a, b] = g.positions_at(g.column_of(p));
            QVERIFY(a <= p && p < b);
        }
        QCOMPARE(g.strip_top(1, 1), 7);
    }

    void head_counts_and_fraction() {
        const Selection s = small_selection();
        const auto counts = kept_head_counts(s);
        QCOMPARE(static_cast<int>(counts.size()), 8);
        // position 0: L0H0, L1H0, L1H1; position 5: L1H1 only; window: all four.
        QCOMPARE(int(counts[0]), 3);
        QCOMPARE(int(counts[1]), 2);
        QCOMPARE(int(counts[4]), 2);
        QCOMPARE(int(counts[5]), 1);
        QCOMPARE(int(counts[6]), 4);
        QCOMPARE(int(counts[7]), 4);
        // kept entries: (4+0+3+6) + 4 strips × window 2 = 21 of 8 × 4 = 32.
        QCOMPARE(kept_fraction(s), 21.0 / 32.0);
    }

    void stability_overlap() {
        const Selection a = small_selection();
        Selection b = small_selection();
        b.layers[0][0].kept = {2, 3, 4, 5};  // half of it was kept before
        // Over document positions < 6: current keeps 4+0+3+6 = 13, of which 2+0+3+6 = 11 before.
        QCOMPARE(kept_overlap(a, b, 6), 11.0 / 13.0);
        QCOMPARE(kept_overlap(a, a, 6), 1.0);
        Selection other = small_selection();
        other.cache_heads = 1;
        QVERIFY(kept_overlap(a, other, 6) < 0);  // shapes differ: not comparable
    }

    void memory_estimate_matches_the_engine_formula() {
        const CacheShape shape{4, 8, 2, 16};  // layers, query heads, KV heads, head dim
        SnapKvConfig c;
        c.budget = 100;
        c.window = 10;
        // kv-head: 4 layers × 2 heads × 100 entries × 16 dims × K,V × 2 bytes (the f16 cache)
        QCOMPARE(estimate_kv_bytes(shape, c, 1000), int64_t{4 * 2 * 100 * 16 * 2 * 2});
        c.gqa = GqaMode::QueryHead;
        QCOMPARE(estimate_kv_bytes(shape, c, 1000), int64_t{4 * 8 * 100 * 16 * 2 * 2});
        c.enabled = false;
        QCOMPARE(estimate_kv_bytes(shape, c, 1000), full_kv_bytes(shape, 1000));
        c.enabled = true;
        QCOMPARE(estimate_kv_bytes(shape, c, 50), full_kv_bytes(shape, 50));  // within budget
        QCOMPARE(full_kv_bytes(shape, 1000), int64_t{2 * 1000 * 4 * 2 * 16 * 2});
    }

    void keep_threshold_is_the_smallest_kept_score() {
        const Selection s = small_selection();
        QCOMPARE(keep_threshold(s.layers[0][0], true), 3.0f);  // kept 0..3 with scores 6..3
        QVERIFY(std::isinf(keep_threshold(s.layers[0][1], true)));
        QVERIFY(std::isinf(keep_threshold(s.layers[1][1], false)));
    }
};

QTEST_GUILESS_MAIN(TestHeatmapRender)
#include "test_heatmap_render.moc"
