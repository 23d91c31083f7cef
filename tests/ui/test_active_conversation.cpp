// Issue 23, major 2: after switching conversations, New, or deleting a conversation, the inspector,
// its heatmap, the context bar and the document's shading and citation highlight show the
// conversation on screen (its last question's selection, or nothing), and the budget slider
// re-selects for that conversation's question. They used to keep showing the last question asked
// in another conversation, and the slider re-selected for it. The real main window, the demo model
// on its report, driven by object name.
#include <QComboBox>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>
#include <algorithm>

#include "app/services/library_store.h"
#include "tests/ui/support/demo_window.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/chat_view.h"
#include "ui/chat/question_edit.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/worker/held_reselect.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {

const QString kQa = "What is the batch number for the green office?";
const QString kQb = "What is the alarm code for the south office?";

// Whether any of the document's text is shaded in the current mode.
bool shaded(DocumentView* view) {
    const int n = view->toPlainText().size();
    for (int o = 0; o < n; o += 7)
        if (view->shade_level_at(o) > 0) return true;
    return false;
}

}  // namespace

class TestActiveConversation : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;
    std::unique_ptr<MainWindow> w_;
    snapdoc::test::RecordingDialogs* dialogs_ = nullptr;

    void ask(const QString& q) { QVERIFY(snapdoc::test::ask_and_wait(*w_, q)); }
    void choose(int64_t conversation) {
        auto* picker = child<QComboBox>(*w_, "conversationPicker");
        const int row = w_->conversation_model().row_of(conversation);
        QVERIFY(row >= 0);
        picker->setCurrentIndex(row);
        emit picker->activated(row);
    }
    // The heatmap shown is of the inspector's selection (it renders off the GUI thread).
    bool heatmap_is_current() {
        InspectorPanel* insp = w_->inspector();
        return wait_until([&] { return insp->last_result().selection == insp->snapshot().selection; }, 10000);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model");
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
        const QString doc = dir_.path() + "/demo-report.txt";
        QVERIFY(QFile::copy(snapdoc::test::source_file("resources/samples/demo-report.txt"), doc));
        w_ = snapdoc::test::demo_window(*store_, doc, &dialogs_);
        QVERIFY(w_);
    }

    void follows_new_switch_slider_and_delete() {
        InspectorPanel* insp = w_->inspector();
        DocumentView* view = w_->document_panel()->view();
        // The context meter by its object name (what the user reads on it).
        auto context_text = [&] { return child<QProgressBar>(*w_, "contextMeter")->format(); };
        const int doc_tokens = w_->documents().ready_info()->document_tokens;
        const QString doc_context = QLocale(QLocale::English).toString(doc_tokens) + " /";

        // Conversation A: one question; its selection, shading, answer weights and a citation shown.
        ask(kQa);
        const int64_t a = w_->chat().conversation_id();
        const uint64_t a_serial = insp->snapshot().question_serial;
        const QString a_context = context_text();
        QVERIFY(heatmap_is_current());
        QVERIFY(shaded(view));
        QVERIFY(view->has_answer_weights());
        const ChatMessage& answer = w_->chat_model().at(1);
        QVERIFY(!answer.citations.empty());
        w_->chat().activate_citation(1, 0);
        QVERIFY(view->highlighted_range().first >= 0);

        // New: nothing of A is shown any more.
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        QVERIFY2(!insp->snapshot().valid(), qPrintable(insp->snapshot().question));
        QVERIFY(insp->last_result().image.isNull());
        QVERIFY(!shaded(view));
        QVERIFY(!view->has_answer_weights());
        QCOMPARE(view->highlighted_range().first, -1);
        QVERIFY2(context_text().contains(doc_context), qPrintable(context_text()));
        QVERIFY(insp->memory_text().contains("no question asked yet"));

        // Conversation B: its own question.
        ask(kQb);
        const int64_t b = w_->chat().conversation_id();
        QVERIFY(b != a);
        const uint64_t b_serial = insp->snapshot().question_serial;
        const QString b_context = context_text();

        // Back to A: A's question, A's context, shading and weights; B's stability is not compared.
        choose(a);
        QCOMPARE(w_->chat().conversation_id(), a);
        QCOMPARE(insp->snapshot().question, kQa);
        QCOMPARE(insp->snapshot().question_serial, a_serial);
        QCOMPARE(insp->question_count(), 1);
        QVERIFY(heatmap_is_current());
        QVERIFY(shaded(view));
        QVERIFY(view->has_answer_weights());
        QCOMPARE(context_text(), a_context);

        // The budget slider re-selects A's question (not B's, the engine's last one).
        const int reselects = w_->chat().reselects_done();
        auto* spin = child<QSpinBox>(*w_, "budgetSpin");
        const int budget = spin->value() == 300 ? 320 : 300;
        spin->setValue(budget);
        QVERIFY(wait_until([&] { return w_->chat().reselects_done() > reselects; }, 10000));
        QVERIFY(wait_until([&] { return insp->snapshot().selection->config.budget == budget; }, 10000));
        QCOMPARE(insp->snapshot().question, kQa);
        QCOMPARE(insp->snapshot().question_serial, a_serial);
        QVERIFY(heatmap_is_current());

        // B again, and its slider goes to the engine (B is its last question).
        choose(b);
        QCOMPARE(insp->snapshot().question, kQb);
        QCOMPARE(context_text(), b_context);
        const int again = w_->chat().reselects_done();
        spin->setValue(budget + 40);
        QVERIFY(wait_until([&] { return w_->chat().reselects_done() > again; }, 10000));
        QVERIFY(wait_until([&] { return insp->snapshot().selection->config.budget == budget + 40; }, 10000));
        QCOMPARE(insp->snapshot().question_serial, b_serial);

        // Deleting B shows what is on screen after it: another conversation's own question, or nothing.
        QTest::mouseClick(child<QPushButton>(*w_, "deleteConversationButton"), Qt::LeftButton);
        QVERIFY(!store_->conversation(b));
        const int64_t now = w_->chat().conversation_id();
        QVERIFY(now != b);
        if (now == a) {
            QCOMPARE(insp->snapshot().question, kQa);
        } else {
            QVERIFY2(!insp->snapshot().valid() || insp->snapshot().question != kQb,
                     qPrintable(insp->snapshot().question));
        }
    }

    // The slider's re-selection of a question that is not the engine's last (reselect_held) keeps
    // what the engine keeps: at the answer's own settings it gives the answer's selection back, also
    // for a second turn whose earlier turn is kept whole.
    void held_reselect_matches_the_engine() {
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        ask(kQa);
        ask(kQb);
        const SelectionSnapshot snap = w_->inspector()->snapshot();
        QVERIFY(snap.valid() && snap.scores);
        QVERIFY2(snap.keep_whole_from >= 0, "the second turn keeps no history whole");
        const SelectionSnapshot again = reselect_held(snap, snap.selection->config);
        const Selection& a = *snap.selection;
        const Selection& b = *again.selection;
        QCOMPARE(b.prompt_len, a.prompt_len);
        QCOMPARE(b.window, a.window);
        QCOMPARE(b.layers.size(), a.layers.size());
        for (std::size_t l = 0; l < a.layers.size(); ++l)
            for (std::size_t h = 0; h < a.layers[l].size(); ++h) {
                auto ka = a.layers[l][h].kept, kb = b.layers[l][h].kept;
                std::sort(ka.begin(), ka.end());
                std::sort(kb.begin(), kb.end());
                QVERIFY2(ka == kb, qPrintable(QString("layer %1 head %2: %3 vs %4 kept")
                                                  .arg(l)
                                                  .arg(h)
                                                  .arg(ka.size())
                                                  .arg(kb.size())));
            }
        QCOMPARE(again.kv_bytes_compressed, snap.kv_bytes_compressed);
    }
};

QTEST_MAIN(TestActiveConversation)
#include "test_active_conversation.moc"
