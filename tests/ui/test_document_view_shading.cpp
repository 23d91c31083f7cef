// The document view's shading toggle: kept by how many heads on a scale where one head of 256 is
// visible (it rounded to nothing before), used by this answer (the chat side's per-position
// weights), one chosen (layer, head); the chat-side API (setAnswerWeights, scrollToAndHighlight)
// and the page/line of a position.
#include <QComboBox>
#include <QSpinBox>
#include <QtTest>

#include "app/common/token_text_map.h"
#include "engine/kv/selection.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

// "w0 w1 w2 ..." with one token per word (the space before a word belongs to it), lines of 10
// words, and no template tokens: position i is word i.
struct Doc {
    QString text;
    std::shared_ptr<TokenTextMap> map;
};
Doc words(int n) {
    Doc d;
    d.map = std::make_shared<TokenTextMap>();
    for (int i = 0; i < n; ++i) {
        if (i > 0) d.text += (i % 10 == 0) ? "\n" : " ";
        d.map->begin.push_back(static_cast<int32_t>(d.text.size()));
        d.text += QString("w%1").arg(i);
        d.map->end.push_back(static_cast<int32_t>(d.text.size()));
    }
    d.map->first_text = 0;
    d.map->last_text = n - 1;
    return d;
}

int offset_of(const Doc& d, int position) {
    return d.map->begin[position];
}

}  // namespace

class TestDocumentViewShading : public QObject {
    Q_OBJECT
private slots:
    void levels() {
        QCOMPARE(head_count_level(0, 256), 0);
        QVERIFY(head_count_level(1, 256) >= 1);  // was lround(8/256) = 0: invisible
        QCOMPARE(head_count_level(256, 256), DocumentView::kLevels);
        for (int c = 1; c < 256; ++c) QVERIFY(head_count_level(c, 256) <= head_count_level(c + 1, 256));
        QCOMPARE(answer_weight_level(0, 1), 0);
        QCOMPARE(answer_weight_level(1, 1), DocumentView::kLevels);
        QVERIFY(answer_weight_level(0.01f, 1) >= 1);
        QCOMPARE(answer_weight_level(1e-5f, 1), 0);  // below three decades
    }

    void one_head_of_256_is_visibly_shaded() {
        DocumentPanel panel;
        const Doc d = words(50);
        panel.show_document("t", d.text, {});
        panel.view()->set_token_map(d.map);
        auto counts = std::make_shared<std::vector<uint16_t>>(50, 0);
        (*counts)[7] = 1;    // the answer sentence, kept by one head of 256
        (*counts)[20] = 200;
        panel.view()->set_head_counts(counts, 256);
        QVERIFY(panel.view()->shade_level_at(offset_of(d, 7)) >= 1);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 8)), 0);
        QVERIFY(panel.view()->shade_level_at(offset_of(d, 20)) > panel.view()->shade_level_at(offset_of(d, 7)));
    }

    void used_by_this_answer_and_one_head() {
        DocumentPanel panel;
        panel.resize(500, 400);
        panel.show();
        const Doc d = words(40);
        panel.show_document("t", d.text, {});
        panel.view()->set_token_map(d.map);
        auto* combo = panel.findChild<QComboBox*>("documentShadingCombo");
        QVERIFY(combo);
        QVERIFY(combo->itemText(1).contains("no answer weights"));
        std::vector<float> w(40, 0.0f);
        w[12] = 0.5f;
        w[13] = 0.002f;
        panel.setAnswerWeights(w);
        QVERIFY(!combo->itemText(1).contains("no answer weights"));
        combo->setCurrentIndex(1);
        QCOMPARE(panel.shading(), DocumentShading::AnswerUse);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 12)), DocumentView::kLevels);
        QVERIFY(panel.view()->shade_level_at(offset_of(d, 13)) >= 1);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 14)), 0);
        panel.clearAnswerWeights();
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 12)), -1);

        // One head: layer 1, head 0 keeps 3 and 30; the window (36..39) is kept by every head.
        auto sel = std::make_shared<Selection>();
        sel->prompt_len = 40;
        sel->window = 4;
        sel->compressed = true;
        sel->cache_heads = 2;
        sel->layers.assign(2, std::vector<HeadSelection>(2));
        sel->layers[1][0].kept = {3, 30};
        sel->layers[0][0].kept = {5};
        panel.set_selection(sel);
        combo->setCurrentIndex(2);
        auto* layer = panel.findChild<QSpinBox*>("shadingLayerSpin");
        QVERIFY(layer && layer->isVisible());
        QCOMPARE(layer->maximum(), 1);
        panel.set_shading_head(1, 0);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 3)), DocumentView::kLevels);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 5)), 0);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 37)), DocumentView::kLevels);
        layer->setValue(0);  // the spin box chooses too
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 5)), DocumentView::kLevels);
        QCOMPARE(panel.view()->shade_level_at(offset_of(d, 3)), 0);
    }

    void scroll_to_and_highlight_a_citation() {
        DocumentPanel panel;
        panel.resize(400, 200);
        panel.show();
        const Doc d = words(3000);  // 300 lines: the end is far out of view
        panel.show_document("t", d.text, {0, static_cast<int>(d.text.size() / 2)});
        panel.view()->set_token_map(d.map);
        const int a = offset_of(d, 2500), b = d.map->end[2505];
        QVERIFY(panel.scrollToAndHighlight(a, b));
        QCOMPARE(panel.view()->highlighted_range(), std::make_pair(a, b));
        // The highlighted text is on screen.
        const QRect r = panel.view()->cursorRect();
        QVERIFY(panel.view()->viewport()->rect().contains(r.center()));
        QVERIFY(!panel.scrollToAndHighlight(-5, 3));
        QVERIFY(!panel.scrollToAndHighlight(static_cast<int>(d.text.size()) + 10, static_cast<int>(d.text.size()) + 20));
        // A new document drops the highlight.
        panel.show_document("u", "other", {});
        QCOMPARE(panel.view()->highlighted_range(), std::make_pair(-1, -1));
    }

    void location_of_a_position() {
        DocumentPanel panel;
        const Doc d = words(100);
        const int page2 = offset_of(d, 50);
        panel.show_document("t", d.text, {0, page2});
        panel.view()->set_token_map(d.map);
        QCOMPARE(panel.location_of(0), QString("page 1 · line 1"));
        QCOMPARE(panel.location_of(49), QString("page 1 · line 5"));
        QCOMPARE(panel.location_of(51), QString("page 2 · line 6"));
        QCOMPARE(panel.location_of(500), QString());
        panel.show_document("t", d.text, {});  // no pages: lines only
        panel.view()->set_token_map(d.map);
        QCOMPARE(panel.location_of(95), QString("line 10"));
    }
};

QTEST_MAIN(TestDocumentViewShading)
#include "test_document_view_shading.moc"
