// Issue 41, item 3, in the real main window (offscreen, the demo model): a three-page PDF made here
// whose one fact is on page 3. The answer's citation line names "p. 3", the page is stored with
// the answer, and clicking the line highlights the fact's passage in the document view.
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"
#include "tests/support/paged_report.h"
#include "tests/support/zip_builder.h"
#include "tests/ui/support/demo_window.h"
#include "ui/chat/chat_view.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/main/chat_controller.h"
#include "ui/models/chat_model.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

class TestCitationPagesApp : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void a_fact_on_page_three_is_cited_on_page_three() {
        QStandardPaths::setTestModeEnabled(true);
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model (docs/demo_model.md)");
        const auto report =
            snapdoc::testing::paged_report(snapdoc::test::source_file("resources/samples/demo-report.txt").toStdString());
        QCOMPARE(report.pages.size(), std::size_t{3});
        const QString pdf = dir_.path() + "/report.pdf";
        std::ofstream(pdf.toStdString(), std::ios::binary) << snapdoc::testing::build_pdf(report.pages, "Farm Records");
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());

        auto w = snapdoc::test::demo_window(store, pdf);
        QVERIFY(w);
        QVERIFY(snapdoc::test::ask_and_wait(*w, QString::fromStdString(report.question)));
        const ChatMessage& answer = w->chat_model().at(1);
        QVERIFY2(answer.text.contains(QString::fromStdString(report.value)), qPrintable(answer.text));
        QVERIFY2(!answer.citations.empty(), "the engine gave no citations");
        QVERIFY2(answer.citations[0].excerpt.contains(QString::fromStdString(report.value)),
                 qPrintable(answer.citations[0].excerpt));
        QCOMPARE(answer.citations[0].page, report.fact_page);
        const QString label = w->chat_model().index(1).data(ChatModel::CitationsRole).toStringList().value(0);
        QVERIFY2(label.startsWith(QStringLiteral("p. %1 · ").arg(report.fact_page)), qPrintable(label));
        const auto stored = store.messages(w->chat().conversation_id());
        QCOMPARE(nlohmann::json::parse(stored.at(1).citations_json)[0].value("page", 0), report.fact_page);

        // A click highlights the passage and the document view shows its page.
        auto* view = child<ChatView>(*w, "chatView");
        view->scrollTo(w->chat_model().index(1));
        QVERIFY(wait_until([&] { return !view->citation_rect(1, 0).isEmpty(); }, 2000));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->citation_rect(1, 0).center());
        DocumentView* doc = w->document_panel()->view();
        QCOMPARE(doc->highlighted_range(), std::make_pair(answer.citations[0].begin, answer.citations[0].end));
        const QString shown = doc->toPlainText().mid(answer.citations[0].begin,
                                                     answer.citations[0].end - answer.citations[0].begin);
        QVERIFY2(shown.contains(QString::fromStdString(report.value)), qPrintable(shown));
        w->close();
    }
};

QTEST_MAIN(TestCitationPagesApp)
#include "test_citation_pages_app.moc"
