// The real main window at 1024×700 holds its layout: the inspector's strips stay tall enough to
// hover with every layer labelled (they were ~4 px with labels dropped), the document column stays
// readable (it was ~140 px), and the inspector scrolls instead of squeezing. The selection is
// synthetic in the demo model's shape (4 layers × 2 KV heads, and 4 query heads), no engine needed.
#include <QScrollArea>
#include <QSplitter>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/document/document_panel.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/retention_grid.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

namespace {

SelectionSnapshot demo_shaped(int heads, uint64_t serial) {
    auto s = std::make_shared<Selection>();
    s->prompt_len = 3000;
    s->window = 16;
    s->compressed = true;
    s->cache_heads = heads;
    s->config.budget = 180;
    s->config.window = 16;
    s->layers.assign(4, std::vector<HeadSelection>(heads));
    for (auto& l : s->layers)
        for (auto& h : l) {
            for (int p = 0; p < 164; ++p) h.kept.push_back(p * 18);
            h.pooled.assign(s->n_prefix(), 1.0f);
        }
    SelectionSnapshot snap;
    snap.selection = s;
    snap.question_serial = serial;
    snap.document_tokens = 2980;
    snap.n_layers = 4;
    snap.n_heads = 4;
    snap.n_kv_heads = 2;
    snap.head_dim = 64;
    return snap;
}

}  // namespace

class TestInspectorLayout : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void holds_at_1024_by_700() {
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        InspectorPanel* insp = w.inspector();
        for (int heads : {2, 4}) {
            const uint64_t before = insp->rendered_serial();
            insp->set_snapshot(demo_shaped(heads, heads));
            QVERIFY(wait_until([&] { return insp->rendered_serial() > before; }, 10000));
            // Let a resize-triggered re-render land too.
            QTest::qWait(200);
            QVERIFY(wait_until([&] { return !insp->last_result().image.isNull(); }, 10000));
            const HeatmapGeometry& g = insp->grid()->geometry();
            QVERIFY2(g.layout.strip_height >= 5, qPrintable(QString("strip height %1").arg(g.layout.strip_height)));
            // Every layer gets its label (RetentionGrid labels each layer from 10 px per layer).
            QVERIFY(g.heads * g.layout.strip_height >= 10);
            // The grid is not squeezed below its strips: all of them are in its scroll area's reach.
            auto* grid_scroll = insp->findChild<QScrollArea*>("retentionGridScroll");
            QVERIFY(grid_scroll);
            QVERIFY2(grid_scroll->height() >= grid_scroll->minimumHeight(),
                     qPrintable(QString("%1 < %2").arg(grid_scroll->height()).arg(grid_scroll->minimumHeight())));
        }
        // Columns: the document stays readable and the inspector keeps its controls' width.
        const int doc_w = w.document_panel()->width();
        qInfo("1024x700: document column %d px, inspector %d px, strips %d px", doc_w, insp->width(),
              insp->grid()->geometry().layout.strip_height);
        QVERIFY2(doc_w >= 240, qPrintable(QString("document column %1 px").arg(doc_w)));
        QVERIFY2(insp->width() >= 280, qPrintable(QString("inspector %1 px").arg(insp->width())));
        // The inspector scrolls vertically rather than overlapping or clipping its parts.
        auto* scroll = insp->findChild<QScrollArea*>("inspectorScroll");
        QVERIFY(scroll);
        QVERIFY(scroll->widget()->height() >= scroll->widget()->minimumSizeHint().height());
    }
};

QTEST_MAIN(TestInspectorLayout)
#include "test_inspector_layout.moc"
