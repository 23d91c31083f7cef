// The PDF page indicator ("page 3 of 40") follows every way of moving through the document
// (issue 23, item 7): PageDown/PageUp, the scroll bar and a citation jump, not only the
// mouse wheel. The real main window's document panel shows a 40-page document with page offsets,
// as the PDF import gives them.
#include <QLabel>
#include <QScrollBar>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

class TestDocumentPageIndicator : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    static int shown_page(const QLabel& label) {
        // "page N of M"
        const QStringList parts = label.text().split(' ');
        return parts.size() >= 2 ? parts[1].toInt() : -1;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void follows_keys_scroll_bar_and_citation_jumps() {
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString text;
        std::vector<int> pages;
        for (int p = 1; p <= 40; ++p) {
            pages.push_back(static_cast<int>(text.size()));
            for (int l = 0; l < 30; ++l) text += QString("Page %1, line %2 of the report.\n").arg(p).arg(l + 1);
        }
        DocumentPanel* panel = w.document_panel();
        panel->show_document("report.pdf", text, pages, "pdf");
        auto* view = panel->findChild<DocumentView*>("documentView");
        auto* label = panel->findChild<QLabel*>("documentPage");
        QVERIFY(view && label);
        QVERIFY(wait_until([&] { return view->document()->characterCount() > text.size(); }, 10000));
        QCoreApplication::processEvents();
        QCOMPARE(shown_page(*label), 1);

        view->setFocus();
        for (int i = 0; i < 6; ++i) QTest::keyClick(view, Qt::Key_PageDown);
        QCoreApplication::processEvents();
        const int after_keys = shown_page(*label);
        QVERIFY2(after_keys > 1, qPrintable(label->text()));
        QTest::keyClick(view, Qt::Key_PageUp);
        QCoreApplication::processEvents();
        QVERIFY2(shown_page(*label) <= after_keys, qPrintable(label->text()));

        // The scroll bar dragged to the end: the last page.
        view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
        QCoreApplication::processEvents();
        QVERIFY2(shown_page(*label) >= 39, qPrintable(label->text()));

        // A citation jump to page 20.
        const int at = pages[19] + 10;
        QVERIFY(panel->scrollToAndHighlight(at, at + 20));
        QCoreApplication::processEvents();
        QVERIFY2(std::abs(shown_page(*label) - 20) <= 1, qPrintable(label->text()));

        // PageUp back to the top: the first page again.
        for (int i = 0; i < 200 && view->verticalScrollBar()->value() > 0; ++i) QTest::keyClick(view, Qt::Key_PageUp);
        QCoreApplication::processEvents();
        QCOMPARE(shown_page(*label), 1);
    }
};

QTEST_MAIN(TestDocumentPageIndicator)
#include "test_document_page_indicator.moc"
