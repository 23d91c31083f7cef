// The head detail explains what the head kept. Adaptive policy (AdaKV) in per-query-head mode: a
// head whose scores are all 0 keeps just its floor, and its smallest kept score (0) is no
// threshold — the detail says which rule kept what (floor, tied scores, the layer's shared
// threshold), and its score axis reaches down to every kept score.
#include <QtTest>
#include <cmath>

#include "engine/kv/selection.h"
#include "ui/inspector/head_detail_view.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/worker/worker_types.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

// 1 layer, 4 query heads over 2 KV heads, 200 prefix positions + window 8. Query head 0 attends
// nowhere in the prefix (all scores 0); the others have a peak.
std::shared_ptr<const Selection> adaptive_query_head_selection() {
    WindowScores ws;
    ws.prompt_len = 208;
    ws.window = 8;
    ws.n_layers = 1;
    ws.n_heads = 4;
    ws.n_kv_heads = 2;
    ws.layers.resize(1);
    ws.layers[0].assign(4 * 200, 0.0f);
    for (int h = 1; h < 4; ++h)
        for (int p = 0; p < 200; ++p)
            ws.layers[0][h * 200 + p] = 1e-3f + (std::abs(p - 50 * h) < 10 ? 1.0f : 0.0f) + 1e-5f * p;
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    c.kernel = 1;
    c.policy = BudgetPolicy::Adaptive;
    c.gqa = GqaMode::QueryHead;
    c.adaptive_floor = 0.25f;  // floor = 10 of the 40 prefix positions per head
    return select_positions(c, ws);
}

}  // namespace

class TestInspectorHeadDetail : public QObject {
    Q_OBJECT
private slots:
    void adaptive_query_head_explains_its_kept_positions() {
        const auto sel = adaptive_query_head_selection();
        QCOMPARE(sel->cache_heads, 4);
        const KeepExplanation e0 = explain_head(*sel, 0, 0);
        QVERIFY(e0.adaptive);
        QCOMPARE(e0.floor, 10);
        QCOMPARE(e0.kept, 10);  // the silent head keeps only its floor
        QCOMPARE(e0.by_floor, 10);
        QCOMPARE(e0.by_threshold, 0);
        QVERIFY(e0.floor_ties);  // all scores 0: the floor is taken by position
        // The other heads' small positive scores beat the silent head's zeros: the layer's shared
        // threshold is one of them, not 0.
        QVERIFY(e0.threshold > 0 && e0.threshold < 0.01f);
        const KeepExplanation e1 = explain_head(*sel, 0, 1);
        QCOMPARE(e1.by_floor, 10);
        QVERIFY(e1.by_threshold > 0);
        QCOMPARE(e1.threshold, e0.threshold);  // one threshold per layer
        for (int32_t p : sel->layers[0][1].kept) {
            // Every kept position is explained: in the head's floor or above the shared threshold.
            const float v = sel->layers[0][1].pooled[p];
            QVERIFY(v >= e1.floor_threshold || v >= e1.threshold);
        }
        // The axis reaches every kept positive score (the old fixed 4 decades could not show 1e-3
        // against a peak when the threshold sat lower).
        const auto [lo, hi] = detail_log_range(e1, sel->layers[0][1]);
        for (int32_t p : sel->layers[0][1].kept) QVERIFY(std::log10(sel->layers[0][1].pooled[p]) >= lo);
        QVERIFY(hi >= std::log10(e1.max_score) - 1e-6);
    }

    void the_caption_names_the_rules_not_a_zero_threshold() {
        SelectionSnapshot snap;
        snap.selection = adaptive_query_head_selection();
        HeadDetailView v;
        v.resize(500, 200);
        v.set_head(snap, 0, 0);
        const QString zero = v.summary();
        QVERIFY2(!zero.contains(QRegularExpression("threshold 0(?![\\d.])")), qPrintable(zero));
        QVERIFY2(zero.contains("floor") && zero.contains("tied at score 0"), qPrintable(zero));
        QVERIFY2(zero.contains("shared threshold"), qPrintable(zero));
        v.set_head(snap, 0, 1);
        QVERIFY2(v.summary().contains("above the layer's shared threshold"), qPrintable(v.summary()));
        // Uniform keeps the head's own top-k threshold wording.
        SnapKvConfig c = snap.selection->config;
        c.policy = BudgetPolicy::Uniform;
        auto uni = std::make_shared<Selection>(*snap.selection);
        uni->config = c;
        snap.selection = uni;
        v.set_head(snap, 0, 1);
        QVERIFY2(v.summary().contains("top-k threshold"), qPrintable(v.summary()));
        // Painting does not crash on a head of zeros.
        snap.selection = adaptive_query_head_selection();
        v.set_head(snap, 0, 0);
        QImage img(v.size(), QImage::Format_ARGB32);
        v.render(&img);
    }
};

QTEST_MAIN(TestInspectorHeadDetail)
#include "test_inspector_head_detail.moc"
