// Issue 41 item 2: "the document view shows the OCR'd text and says it was recognised, not read",
// also when the scan is reopened from the library. The pages read by OCR and their language are
// stored with the document (schema v4); showing it, in this run or after a restart, puts the note
// in the facts line, and a document without such pages shows none.
#include <QLabel>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;

class TestRecognisedPagesNote : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string db() const { return (dir_.path() + "/library.sqlite").toStdString(); }

    static QString facts_after_showing(services::LibraryStore& store, int64_t id) {
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        auto* documents = w.findChild<DocumentController*>();
        if (!documents) return "(no document controller)";
        documents->show(id);
        auto* facts = w.findChild<QLabel*>("documentFacts");
        return facts ? facts->text() : "(no facts line)";
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void the_note_comes_back_from_the_library() {
        int64_t scan = -1, text = -1;
        {
            services::LibraryStore store(db());
            services::NewDocument d;
            d.path = "/tmp/mixed-scan.pdf";
            d.title = "Mixed scan";
            d.content_hash = "hash-scan";
            d.format = "pdf";
            d.text = "Typed first page.\n\nRecognised second page.\n\nRecognised third page.\n";
            d.byte_size = 1000;
            d.page_offsets = {0, 19, 44};
            d.recognised_pages = {1, 2};
            d.ocr_language = "eng";
            scan = store.add_document(d);
            services::NewDocument t;
            t.path = "/tmp/notes.txt";
            t.title = "Notes";
            t.content_hash = "hash-text";
            t.format = "txt";
            t.text = "Plain notes.\n";
            t.byte_size = 13;
            text = store.add_document(t);
            const auto rec = store.document(scan);
            QVERIFY(rec);
            QCOMPARE(rec->recognised_pages, std::vector<int>({1, 2}));
            QCOMPARE(rec->ocr_language, std::string("eng"));
            QVERIFY(store.document(text)->recognised_pages.empty());
        }
        // A fresh store on the same file: the app started again, the scan chosen in the library.
        services::LibraryStore store(db());
        const QString facts = facts_after_showing(store, scan);
        QVERIFY2(facts.contains("recognised by OCR (eng): 2, 3"), qPrintable(facts));
        QVERIFY2(facts.contains("not text the PDF contains"), qPrintable(facts));
        const QString plain = facts_after_showing(store, text);
        QVERIFY2(!plain.contains("recognised by OCR"), qPrintable(plain));
    }

    void switching_documents_clears_the_note() {
        services::LibraryStore store(db());
        const auto docs = store.documents();
        int64_t scan = -1, text = -1;
        for (const auto& d : docs) (d.format == "pdf" ? scan : text) = d.id;
        QVERIFY(scan >= 0 && text >= 0);
        MainWindow w(store, std::make_unique<snapdoc::test::RecordingDialogs>());
        auto* documents = w.findChild<DocumentController*>();
        QVERIFY(documents);
        auto* facts = w.findChild<QLabel*>("documentFacts");
        QVERIFY(facts);
        documents->show(scan);
        QVERIFY2(facts->text().contains("recognised by OCR"), qPrintable(facts->text()));
        documents->show(text);
        QVERIFY2(!facts->text().contains("recognised by OCR"), qPrintable(facts->text()));
    }
};

QTEST_MAIN(TestRecognisedPagesNote)
#include "test_recognised_pages_note.moc"
