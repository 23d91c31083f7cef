// Multi-turn conversations in the real main window, driven by object name, offscreen, with the demo
// model (resources/models/snapdoc-demo.gguf) on its sample report: three turns whose prompts grow by
// the history sent; a new conversation starts from the document alone; citations under answers
// that scroll to and highlight the document; rename / delete (confirmed) / search; and the chat
// defects of issue 12, each with the behaviour that was wrong: Regenerate at temperature 1.5 gave
// the identical answer and replaced the old one; a stop before any text left an empty answer;
// Esc did not stop from every focus; "Remove from library" asked nothing and the file stayed in
// Recent; clicking an old question did not bring back its selection; the export followed the typed
// name, not the filter, and opened outside the user's folders.
#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/chat_view.h"
#include "ui/chat/question_edit.h"
#include "ui/dialogs/compare_dialog.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/models/library_model.h"
#include "ui/worker/engine_host.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

using snapdoc::test::child;

namespace {

QString repo_file(const char* rel) {
    return snapdoc::test::source_file(rel);
}

}  // namespace

class TestConversationApp : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;
    QString doc_;

    std::unique_ptr<MainWindow> ready_window(snapdoc::test::RecordingDialogs*& dialogs) {
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        dialogs = d.get();
        auto w = std::make_unique<MainWindow>(*store_, std::move(d));
        w->resize(1400, 900);
        w->show();
        w->settings().generation.max_new_tokens = 32;
        w->settings().generation.sampling.temperature = 0;
        QSignalSpy loaded(&w->models(), &ModelController::loaded);
        w->open_model(repo_file("resources/models/snapdoc-demo.gguf"), false);
        if (!wait_until([&] { return loaded.count() == 1; })) qFatal("the demo model did not load");
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(doc_);
        if (!wait_until([&] { return ready.count() == 1; })) qFatal("the demo report was not prefilled");
        return w;
    }

    AnswerStats ask(MainWindow& w, const QString& q) {
        QSignalSpy done(&w.chat(), &ChatController::answerDone);
        auto* edit = child<QuestionEdit>(w, "questionEdit");
        edit->setText(q);
        QTest::keyClick(edit, Qt::Key_Return);
        if (!wait_until([&] { return done.count() == 1; })) qFatal("no answer");
        return done.last().at(0).value<AnswerStats>();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (!QFileInfo::exists(repo_file("resources/models/snapdoc-demo.gguf"))) QSKIP("no demo model");
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
        doc_ = dir_.path() + "/demo-report.txt";
        QVERIFY(QFile::copy(repo_file("resources/samples/demo-report.txt"), doc_));
    }

    void three_turns_send_the_history() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        const AnswerStats a1 = ask(*w, "What is the batch number for the green office?");
        const AnswerStats a2 = ask(*w, "What is the alarm code for the south office?");
        const AnswerStats a3 = ask(*w, "And the serial number for the new office?");
        QCOMPARE(a1.history_turns, 0);
        QCOMPARE(a2.history_turns, 1);
        QCOMPARE(a3.history_turns, 2);
        // The prompt holds the earlier turns: it grows by at least their questions and answers.
        QVERIFY2(a2.prompt_tokens > a1.prompt_tokens + a1.generated_tokens,
                 qPrintable(QString("%1 vs %2").arg(a2.prompt_tokens).arg(a1.prompt_tokens)));
        QVERIFY(a3.prompt_tokens > a2.prompt_tokens + a2.generated_tokens);
        QCOMPARE(w->chat_model().rowCount(), 6);
        QVERIFY(w->chat_model().at(5).meta.contains("2 earlier turns"));
        const auto stored = store_->messages(w->chat().conversation_id());
        QCOMPARE(stored.size(), std::size_t{6});
        QCOMPARE(QString::fromStdString(stored[5].model), repo_file("resources/models/snapdoc-demo.gguf"));

        // Citations under the answer: stored with it, a click scrolls to and highlights the passage.
        const ChatMessage& answer = w->chat_model().at(1);
        QVERIFY2(!answer.citations.empty(), "the engine gave no citations");
        QVERIFY(nlohmann::json::parse(stored[1].citations_json).size() == answer.citations.size());
        auto* view = child<ChatView>(*w, "chatView");
        view->scrollTo(w->chat_model().index(1));
        QVERIFY(wait_until([&] { return !view->citation_rect(1, 0).isEmpty(); }, 2000));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->citation_rect(1, 0).center());
        DocumentView* doc = w->document_panel()->view();
        QCOMPARE(doc->highlighted_range(), std::make_pair(answer.citations[0].begin, answer.citations[0].end));

        // A new conversation starts from the document alone.
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        const AnswerStats fresh = ask(*w, "What is the batch number for the green office?");
        QCOMPARE(fresh.history_turns, 0);
        QCOMPARE(fresh.prompt_tokens, a1.prompt_tokens);
        w->close();
    }

    // Defect: clicking an old question did not bring back its selection.
    void clicking_an_old_turn_restores_its_selection() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        ask(*w, "What is the batch number for the green office?");
        const uint64_t first = w->inspector()->snapshot().question_serial;
        ask(*w, "What is the alarm code for the south office?");
        QVERIFY(w->inspector()->snapshot().question_serial != first);
        auto* view = child<ChatView>(*w, "chatView");
        view->scrollTo(w->chat_model().index(0));
        QTest::qWait(50);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(w->chat_model().index(0)).center());
        QCOMPARE(w->inspector()->snapshot().question_serial, first);
    }

    // Defect: Regenerate at temperature 1.5 gave the identical answer and replaced the old one.
    void regenerate_samples_anew_and_keeps_the_earlier_answer() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        // The wired demo model's logits are sharp (its top logit leads by ~20-30), so at 1.5 every
        // sample would be the greedy answer; at the Settings' highest temperature they differ.
        w->settings().generation.sampling.temperature = 5.0f;
        w->settings().generation.sampling.top_k = 0;
        w->settings().generation.sampling.top_p = 1.0f;
        // A question the report does not answer, so no wired rule makes the answer certain.
        const AnswerStats first = ask(*w, "Tell me about the weather and the harbour.");
        QSignalSpy done(&w->chat(), &ChatController::answerDone);
        QSignalSpy errors(&w->chat(), &ChatController::answerError);
        QStringList answers{first.answer};
        for (int k = 1; k <= 3; ++k) {
            QVERIFY(child<QPushButton>(*w, "regenerateButton")->isEnabled());
            QTest::mouseClick(child<QPushButton>(*w, "regenerateButton"), Qt::LeftButton);
            QVERIFY2(wait_until([&] { return done.count() == k || errors.count() > 0; }),
                     qPrintable(w->chat_panel()->status_text()));
            QVERIFY2(errors.isEmpty(), qPrintable(errors.isEmpty() ? QString() : errors.last().at(0).toString()));
            answers << done.last().at(0).value<AnswerStats>().answer;
        }
        QCOMPARE(w->chat_model().rowCount(), 5);  // the question and four versions
        QCOMPARE(w->chat_model().index(4).data(ChatModel::HeaderRole).toString(), QString("Answer · version 4 of 4"));
        answers.removeDuplicates();
        QVERIFY2(answers.size() > 1, "four samples at temperature 5 were identical");
        const auto stored = store_->messages(w->chat().conversation_id());
        QCOMPARE(stored.size(), std::size_t{5});
        const auto s1 = nlohmann::json::parse(stored[1].settings_json), s2 = nlohmann::json::parse(stored[2].settings_json);
        QVERIFY(s1.dump().find("seed") != std::string::npos);
        QVERIFY(s1 != s2);  // another seed
    }

    // Defect: a stop at 0 tokens left an empty answer in the history.
    void a_stop_before_any_text_keeps_no_answer() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        // The stop is set right after the request is posted, before the engine thread has run it.
        auto* edit = child<QuestionEdit>(*w, "questionEdit");
        edit->setText("What is the batch number for the green office?");
        w->ask(edit->text());
        w->chat().stop();
        QVERIFY(wait_until([&] { return !w->chat().busy(); }));
        QCOMPARE(w->chat_model().rowCount(), 1);  // the question only
        const auto stored = store_->messages(w->chat().conversation_id());
        QCOMPARE(stored.size(), std::size_t{1});
        QVERIFY(conversation_turns(w->chat_model().messages()).empty());
        QVERIFY2(w->chat_panel()->status_text().contains("no answer was kept"),
                 qPrintable(w->chat_panel()->status_text()));
    }

    // Defect: Esc sometimes failed to stop. From each place the focus can be, Esc stops the answer.
    void escape_stops_from_any_focus() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        w->settings().generation.max_new_tokens = 4000;
        w->settings().generation.ignore_context = true;
        const QList<QWidget*> targets = {child<QuestionEdit>(*w, "questionEdit"), child<ChatView>(*w, "chatView"),
                                         w->document_panel()->view(), child<QComboBox>(*w, "conversationPicker"),
                                         child<QLineEdit>(*w, "conversationSearch")};
        QAction* stop = nullptr;
        for (QAction* a : w->findChildren<QAction*>())
            if (a->text() == "&Stop") stop = a;
        QVERIFY(stop);
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        for (QWidget* target : targets) {
            QVERIFY(w->ask("What is the batch number for the green office?"));
            target->setFocus();
            QSignalSpy stopped(stop, &QAction::triggered);
            QTest::keyClick(target, Qt::Key_Escape);
            QVERIFY2(stopped.count() == 1, qPrintable("Esc did not stop with the focus on " + target->objectName()));
            QVERIFY(wait_until([&] { return !w->chat().busy(); }, 20000));
        }
        // The comparison window: Esc closes it and stops the comparison with it.
        w->chat().compare("What is the batch number for the green office?");
        CompareDialog* compare = w->findChild<CompareDialog*>("compareDialog");
        QVERIFY(compare);
        QTest::keyClick(compare, Qt::Key_Escape);
        QVERIFY(wait_until([&] { return !w->chat().busy(); }, 20000));
    }

    void rename_delete_search() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        ask(*w, "What is the serial number for the new office?");
        const int64_t id = w->chat().conversation_id();
        dialogs->texts << "Serial numbers";
        QTest::mouseClick(child<QPushButton>(*w, "renameConversationButton"), Qt::LeftButton);
        QCOMPARE(store_->conversation(id)->title, std::string("Serial numbers"));
        auto* picker = child<QComboBox>(*w, "conversationPicker");
        QVERIFY(picker->currentText().startsWith("Serial numbers"));
        // Search: by answer/question text; the picker lists only the matches.
        auto* search = child<QLineEdit>(*w, "conversationSearch");
        search->setText("SERIAL NUMBERS");  // the new title (the question is also in another conversation)
        QCOMPARE(w->conversation_model().rowCount(), 1);
        QCOMPARE(w->conversation_model().at(0).id, id);
        search->setText("no such words anywhere");
        QCOMPARE(w->conversation_model().rowCount(), 0);
        search->clear();
        QVERIFY(w->conversation_model().rowCount() > 1);
        // Delete asks first; "no" keeps it.
        dialogs->confirm_answer_generic = false;
        QTest::mouseClick(child<QPushButton>(*w, "deleteConversationButton"), Qt::LeftButton);
        QVERIFY(store_->conversation(id));
        dialogs->confirm_answer_generic = true;
        QTest::mouseClick(child<QPushButton>(*w, "deleteConversationButton"), Qt::LeftButton);
        QCOMPARE(dialogs->confirmations_asked.count("Delete conversation?"), 2);
        QVERIFY(!store_->conversation(id));
        QVERIFY(store_->messages(id).empty());
        QVERIFY(w->chat().conversation_id() != id);
    }

    void system_prompt_per_conversation() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        const AnswerStats plain = ask(*w, "What is the batch number for the green office?");
        dialogs->texts << "Answer with the number only.";
        QTest::mouseClick(child<QPushButton>(*w, "systemPromptButton"), Qt::LeftButton);
        QVERIFY(w->chat_panel()->status_text().contains("reads the document again"));
        QVERIFY(child<QPushButton>(*w, "systemPromptButton")->text().contains("Answer with the number only."));
        const AnswerStats with = ask(*w, "What is the alarm code for the south office?");
        QVERIFY(with.system_prompt_seconds > 0);  // the document was read again
        QCOMPARE(store_->conversation(w->chat().conversation_id())->system_prompt,
                 std::string("Answer with the number only."));
        QVERIFY(with.prompt_tokens > plain.prompt_tokens);
        QVERIFY(w->chat_model().at(3).meta.contains("read again"));
    }

    // Defects: the export format followed the typed name, and the dialog opened outside the user's folders.
    void export_follows_the_filter_and_opens_in_user_folders() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QTest::mouseClick(child<QPushButton>(*w, "newConversationButton"), Qt::LeftButton);
        ask(*w, "What is the batch number for the green office?");
        QAction* exp = nullptr;
        for (QAction* a : w->findChildren<QAction*>())
            if (a->text() == "&Export Conversation…") exp = a;
        QVERIFY(exp);
        // The working directory stands in for an install tree; it must not contain home (under ctest
        // HOME sits inside the build folder, which is the test's working directory).
        QTemporaryDir install_tree;
        QVERIFY(install_tree.isValid());
        const QString old_cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(install_tree.path()));
        dialogs->next_file = dir_.path() + "/typed-name.md";
        dialogs->next_filter = "JSON (*.json)";
        exp->trigger();
        QVERIFY(QDir::setCurrent(old_cwd));
        QVERIFY2(dialogs->last_suggested.startsWith(QDir::homePath()) &&
                     !dialogs->last_suggested.startsWith(install_tree.path() + "/"),
                 qPrintable(dialogs->last_suggested));
        QVERIFY(dialogs->last_suggested.endsWith(".md"));
        QFile out(dir_.path() + "/typed-name.md.json");
        QVERIFY(out.open(QIODevice::ReadOnly));
        QVERIFY(nlohmann::json::accept(out.readAll().toStdString()));
        QVERIFY(!QFile::exists(dialogs->next_file));
        // The next export opens where the last one went.
        exp->trigger();
        QCOMPARE(QFileInfo(dialogs->last_suggested).absolutePath(), dir_.path());
        QVERIFY(dialogs->errors.isEmpty());
    }

    // Defect: "Remove from library" asked nothing and the file stayed in Recent.
    void remove_from_library_asks_and_leaves_recent() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = ready_window(dialogs);
        QVERIFY(std::find(w->settings().recent_documents.begin(), w->settings().recent_documents.end(),
                          doc_.toStdString()) != w->settings().recent_documents.end());
        auto* list = child<QListView>(*w, "libraryView");
        QAction* remove = nullptr;
        for (QAction* a : list->actions())
            if (a->text() == "Remove from library") remove = a;
        QVERIFY(remove);
        const int docs = w->library_model().rowCount();
        dialogs->confirm_answer_generic = false;
        remove->trigger();
        QCOMPARE(dialogs->confirmations_asked.count("Remove from library?"), 1);
        QCOMPARE(w->library_model().rowCount(), docs);
        dialogs->confirm_answer_generic = true;
        remove->trigger();
        QCOMPARE(w->library_model().rowCount(), docs - 1);
        QVERIFY(std::find(w->settings().recent_documents.begin(), w->settings().recent_documents.end(),
                          doc_.toStdString()) == w->settings().recent_documents.end());
    }
};

QTEST_MAIN(TestConversationApp)
#include "test_conversation_app.moc"
