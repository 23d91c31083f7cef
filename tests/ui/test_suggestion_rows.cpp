// Issue 37: after a document switch the "Suggested questions" rows were squeezed to ~5 px and could
// not be clicked. The list's height was fixed when it was filled, from layout items of buttons not
// shown yet (0 × 0). Checked on the chat panel alone and in the real window, document A then B.
#include <QPushButton>
#include <QScrollArea>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/demo_window.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/chat_panel.h"
#include "ui/main/document_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

namespace {

// Every suggestion button is at least as tall as it asks to be, and the first rows are not cut off
// by the scroll area (up to four show without scrolling).
QString squeezed_rows(QWidget& top) {
    QString problems;
    const auto buttons = top.findChildren<QPushButton*>("suggestionButton");
    for (QPushButton* b : buttons)
        if (!b->isVisible() || b->height() < b->sizeHint().height())
            problems += QString("“%1”: %2 px tall, wants %3 px (visible: %4)\n")
                            .arg(b->text())
                            .arg(b->height())
                            .arg(b->sizeHint().height())
                            .arg(b->isVisible());
    auto* scroll = top.findChild<QScrollArea*>("suggestionScroll");
    if (scroll && !buttons.isEmpty()) {
        const int shown = std::min<int>(4, static_cast<int>(buttons.size()));
        const QPushButton* last_whole = buttons[shown - 1];
        const int bottom = last_whole->mapTo(scroll->viewport(), QPoint(0, last_whole->height())).y();
        if (bottom > scroll->viewport()->height())
            problems += QString("row %1 ends at %2 px, below the %3 px list\n")
                            .arg(shown)
                            .arg(bottom)
                            .arg(scroll->viewport()->height());
    }
    return problems;
}

bool write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

}  // namespace

class TestSuggestionRows : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The panel on screen, filled and filled again (a switch between two documents with questions),
    // then emptied (a document without) and filled.
    void rows_keep_their_height_when_refilled_on_screen() {
        ChatModel messages;
        ConversationModel conversations;
        ChatPanel panel(&messages, &conversations);
        panel.resize(420, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QStringList first{"What is the access code for the north gate?", "Who signed the report?"};
        const QStringList second{"What is the batch number for the green office?",
                                 "What is the alarm code for the south office?", "Where is the copper office?"};
        const auto fill = [&](const QStringList& questions) {
            panel.set_suggestions(questions);
            QCoreApplication::processEvents();
            QCoreApplication::processEvents();
        };
        fill(first);
        fill(second);
        QCOMPARE(panel.findChildren<QPushButton*>("suggestionButton").size(), 3);
        const QString switched = squeezed_rows(panel);
        QVERIFY2(switched.isEmpty(), qPrintable(switched));
        fill({});
        fill(first);
        const QString refilled = squeezed_rows(panel);
        QVERIFY2(refilled.isEmpty(), qPrintable(refilled));

        // More than four rows scroll: the list is about four and a half rows tall, not all of them.
        QStringList many;
        for (int i = 0; i < 7; ++i) many << QString("Question number %1?").arg(i + 1);
        panel.set_suggestions(many);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        const QString problems_many = squeezed_rows(panel);
        QVERIFY2(problems_many.isEmpty(), qPrintable(problems_many));
        auto* scroll = panel.findChild<QScrollArea*>("suggestionScroll");
        const int row = panel.findChildren<QPushButton*>("suggestionButton")[0]->height();
        QVERIFY2(scroll->viewport()->height() < 6 * row, qPrintable(QString::number(scroll->viewport()->height())));
    }

    // The report as seen: document A, then document B, each with its side file of questions.
    void rows_keep_their_height_after_a_document_switch() {
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model");
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());
        const QString a = dir_.path() + "/a.txt", b = dir_.path() + "/b.txt";
        QVERIFY(write_file(a, snapdoc::test::sample_text(200).toUtf8()));
        QVERIFY(write_file(b, snapdoc::test::sample_text(250).toUtf8()));
        QVERIFY(write_file(dir_.path() + "/a.questions.tsv", "Who wrote document A?\nWhen was it written?\n"));
        QVERIFY(write_file(dir_.path() + "/b.questions.tsv",
                           "What is the access code for the north gate?\n"
                           "Who signed the report?\nWhere is the copper office?\n"));
        auto w = snapdoc::test::demo_window(store, a);
        QVERIFY(w);
        QCOMPARE(w->findChildren<QPushButton*>("suggestionButton").size(), 2);
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(b);
        QVERIFY(wait_until([&] { return ready.count() >= 1; }));
        QCoreApplication::processEvents();
        QCOMPARE(w->findChildren<QPushButton*>("suggestionButton").size(), 3);
        const QString problems = squeezed_rows(*w);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }
};

QTEST_MAIN(TestSuggestionRows)
#include "test_suggestion_rows.moc"
