// The inspector's plots in the real main window (issue 23, items 19 and 20): axis tick labels are
// drawn whole and inside the widget (the heatmap showed "1800" as "180" at its right edge and
// "page 32 · lin"), and the head-detail plot has an x axis of prompt positions. The selection is
// synthetic in the demo model's shape; no engine needed. Heads inside a layer are labelled and
// strips grow to fill a large window.
#include <QScrollArea>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/inspector/head_detail_view.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/retention_grid.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

namespace {

SelectionSnapshot synthetic(int layers, int heads, int prompt_len, uint64_t serial) {
    auto s = std::make_shared<Selection>();
    s->prompt_len = prompt_len;
    s->window = 16;
    s->compressed = true;
    s->cache_heads = heads;
    s->config.budget = 180;
    s->config.window = 16;
    s->layers.assign(layers, std::vector<HeadSelection>(heads));
    for (auto& l : s->layers)
        for (auto& h : l) {
            for (int p = 0; p < s->n_prefix(); p += 11) h.kept.push_back(p);
            h.pooled.assign(s->n_prefix(), 1.0f);
            for (int p = 0; p < s->n_prefix(); ++p) h.pooled[p] = 1.0f + static_cast<float>(p % 97);
        }
    SelectionSnapshot snap;
    snap.selection = s;
    snap.question_serial = serial;
    snap.document_tokens = prompt_len - 20;
    snap.n_layers = layers;
    snap.n_heads = heads;
    snap.n_kv_heads = heads;
    snap.head_dim = 64;
    return snap;
}

// Every label lies inside the widget, whole (not elided) and as wide as its text needs.
void check_labels(const std::vector<AxisLabel>& labels, const QWidget& w, const char* what) {
    for (const AxisLabel& l : labels) {
        QVERIFY2(w.rect().contains(l.rect), qPrintable(QString("%1: '%2' at %3+%4 outside 0..%5")
                                                           .arg(what, l.text)
                                                           .arg(l.rect.x())
                                                           .arg(l.rect.width())
                                                           .arg(w.width())));
        QVERIFY2(!l.text.contains(QChar(0x2026)), qPrintable(QString("%1: '%2' elided").arg(what, l.text)));
    }
}

}  // namespace

class TestInspectorAxes : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void tick_labels_are_whole_and_the_head_detail_has_an_x_axis() {
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        InspectorPanel* insp = w.inspector();
        RetentionGrid* grid = insp->findChild<RetentionGrid*>("retentionGrid");
        QVERIFY(grid);
        // Labels as long as a real PDF's ("page 32 · line 41") at every tick.
        grid->set_location_lookup([](int pos) { return QString("page %1 · line %2").arg(pos / 60 + 1).arg(pos % 60 + 1); });
        uint64_t serial = 1;
        for (int width : {1024, 1280, 1600}) {
            w.resize(width, 700);
            // 1834 positions: a tick at 1800 lands near the right edge, where it was cut to "180".
            const uint64_t before = insp->rendered_serial();
            insp->set_snapshot(synthetic(4, 2, 1834, serial++));
            QVERIFY(wait_until([&] { return insp->rendered_serial() > before; }, 10000));
            QTest::qWait(100);
            const auto labels = grid->axis_labels();
            QVERIFY2(labels.size() >= 2, qPrintable(QString::number(labels.size())));
            check_labels(labels, *grid, "heatmap");
            bool has_location = false;
            for (const AxisLabel& l : labels) has_location |= l.text.startsWith("page ") && l.text.contains("· line ");
            QVERIFY(has_location);

            insp->lock_head(1, 1);
            auto* detail = insp->findChild<HeadDetailView*>("headDetailView");
            QVERIFY(detail);
            QCOMPARE(detail->layer(), 1);
            const auto x_axis = detail->axis_labels();
            // An x axis from 0 across the prompt, more than one label.
            QVERIFY2(x_axis.size() >= 2, qPrintable(QString::number(x_axis.size())));
            QCOMPARE(x_axis.front().text, QString("0"));
            // Positions are grouped as every other count is ("1,800", not "1800": issue 37).
            for (const auto* axis : {&labels, &x_axis})
                for (const AxisLabel& l : *axis)
                    QVERIFY2(!l.text.contains(QRegularExpression("\\d{4}")), qPrintable(l.text));
            QVERIFY2(std::any_of(labels.begin(), labels.end(), [](const AxisLabel& l) { return l.text.contains(','); }),
                     "no tick past 999 on a 1,834-position axis");
            QVERIFY2(detail->summary().contains(QRegularExpression(" of 1,\\d{3} \\+ ")), qPrintable(detail->summary()));
            check_labels(x_axis, *detail, "head detail");
        }
    }

    // Item 20: heads inside a layer are labelled, a 2-layer model gets tall strips, and a large
    // window does not leave the grid's area mostly empty (strips were capped at 14 px).
    void heads_are_labelled_and_the_strips_fill_a_large_window() {
        services::LibraryStore store((dir_.path() + "/library2.sqlite").toStdString());
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        uint64_t serial = 100;
        struct Case {
            int width, height, layers, heads;
        };
        for (const Case c : {Case{1600, 1000, 2, 2}, Case{1600, 1000, 4, 2}, Case{1024, 700, 2, 2}, Case{1024, 700, 4, 2}}) {
            w.resize(c.width, c.height);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            InspectorPanel* insp = w.inspector();
            const uint64_t before = insp->rendered_serial();
            insp->set_snapshot(synthetic(c.layers, c.heads, 3000, serial++));
            QVERIFY(wait_until([&] { return insp->rendered_serial() > before; }, 10000));
            QTest::qWait(250);  // a resize-triggered re-render lands too
            QVERIFY(wait_until([&] { return !insp->last_result().image.isNull(); }, 10000));
            auto* grid = insp->findChild<RetentionGrid*>("retentionGrid");
            auto* scroll = insp->findChild<QScrollArea*>("retentionGridScroll");
            QVERIFY(grid && scroll);
            const int strip = grid->geometry().layout.strip_height;
            const QString what = QString("%1x%2, %3 layers x %4 heads: strips %5 px, grid %6 of %7 px")
                                     .arg(c.width)
                                     .arg(c.height)
                                     .arg(c.layers)
                                     .arg(c.heads)
                                     .arg(strip)
                                     .arg(grid->image().height() + RetentionGrid::kAxisHeight)
                                     .arg(scroll->viewport()->height());
            qInfo("%s", qPrintable(what));
            // A 2-layer model's 4 strips are tall (they were ~12 px), and a large window's strips
            // are tall enough to label every head.
            if (c.layers == 2 || c.height >= 1000) QVERIFY2(strip >= 20, qPrintable(what));
            // Labelled per head where tall enough: "L<l> h0" on each layer's first strip, "h1" below.
            int head_labels = 0;
            for (const AxisLabel& l : grid->strip_labels()) head_labels += l.text.startsWith("h") ? 1 : 0;
            if (strip >= 14) QVERIFY2(head_labels == c.layers * (c.heads - 1), qPrintable(what));
            // The strips use the room they are given (up to 48 px each).
            if (strip < 48)
                QVERIFY2(grid->image().height() + RetentionGrid::kAxisHeight >= 0.8 * scroll->viewport()->height(),
                         qPrintable(what));
        }
    }
};

QTEST_MAIN(TestInspectorAxes)
#include "test_inspector_axes.moc"
