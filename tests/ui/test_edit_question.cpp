// Issue 37 ("missing beside LM Studio, Jan and GPT4All"): a sent question could not be edited.
// "Edit last question" puts it back in the question box and removes it and its answer (card and
// store); asking again re-uses the document's K/V (no second prefill). The demo model on its report.
#include <QPushButton>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/demo_window.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/question_edit.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/models/chat_model.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {
const QString kQa = "What is the batch number for the green office?";
const QString kQb = "What is the alarm code for the south office?";
}  // namespace

class TestEditQuestion : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void the_last_question_goes_back_to_the_box_with_its_answer_removed() {
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model");
        services::LibraryStore store((dir_.path() + "/library.sqlite").toStdString());
        const QString doc = dir_.path() + "/demo-report.txt";
        QVERIFY(QFile::copy(snapdoc::test::source_file("resources/samples/demo-report.txt"), doc));
        auto w = snapdoc::test::demo_window(store, doc);
        QVERIFY(w);
        auto* edit_button = child<QPushButton>(*w, "editQuestionButton");
        QVERIFY(!edit_button->isEnabled());  // nothing asked yet
        QVERIFY(snapdoc::test::ask_and_wait(*w, kQa));
        QVERIFY(snapdoc::test::ask_and_wait(*w, kQb));
        ChatModel& messages = w->chat_model();
        QCOMPARE(messages.rowCount(), 4);
        const int64_t conversation = w->chat().conversation_id();
        QCOMPARE(store.messages(conversation).size(), std::size_t{4});

        QVERIFY(edit_button->isEnabled());
        QTest::mouseClick(edit_button, Qt::LeftButton);
        QCOMPARE(child<QuestionEdit>(*w, "questionEdit")->text(), kQb);
        QCOMPARE(messages.rowCount(), 2);
        QCOMPARE(messages.at(0).text, kQa);
        QCOMPARE(store.messages(conversation).size(), std::size_t{2});

        // Asked again (edited): answered from the document already held, no prefill.
        QSignalSpy prefill(&w->documents(), &DocumentController::prefillStarted);
        QVERIFY(snapdoc::test::ask_and_wait(*w, "What is the alarm code for the north office?"));
        QCOMPARE(prefill.count(), 0);
        QCOMPARE(messages.rowCount(), 4);
        QCOMPARE(messages.at(2).text, QString("What is the alarm code for the north office?"));
        QVERIFY(!messages.at(3).text.isEmpty());
        QCOMPARE(store.messages(conversation).size(), std::size_t{4});
    }
};

QTEST_MAIN(TestEditQuestion)
#include "test_edit_question.moc"
