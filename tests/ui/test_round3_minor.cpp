// Issue 23's minor items in the real main window (the demo model on its report, offscreen, driven by
// object name), each with the behaviour that was wrong.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QPushButton>
#include <QScopeGuard>
#include <QSlider>
#include <QSpinBox>
#include <QMenu>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"
#include "engine/model/model_summary.h"
#include "tests/ui/support/demo_window.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/citation_format.h"
#include "ui/chat/question_edit.h"
#include "ui/dialogs/compare_dialog.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/head_detail_view.h"
#include "ui/inspector/head_roles.h"
#include "ui/inspector/heatmap_render.h"
#include "ui/inspector/inspector_panel.h"
#include "ui/inspector/retention_grid.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"
#include "ui/models/library_model.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {
const QString kQa = "What is the batch number for the green office?";
const QString kQb = "What is the alarm code for the south office?";
}  // namespace

class TestRound3Minor : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString doc_;
    std::unique_ptr<services::LibraryStore> store_;
    std::unique_ptr<MainWindow> w_;
    snapdoc::test::RecordingDialogs* dialogs_ = nullptr;

    void ask(const QString& q) { QVERIFY(snapdoc::test::ask_and_wait(*w_, q)); }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model");
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
        doc_ = dir_.path() + "/demo-report.txt";
        QVERIFY(QFile::copy(snapdoc::test::source_file("resources/samples/demo-report.txt"), doc_));
        QVERIFY(QFile::copy(snapdoc::test::source_file("resources/samples/demo-report.questions.tsv"),
                            dir_.path() + "/demo-report.questions.tsv"));
        w_ = snapdoc::test::demo_window(*store_, doc_, &dialogs_);
        QVERIFY(w_);
    }

    // 17: while an answer streamed, the inspector still showed the previous question. 26: the
    // citation highlight stayed after the next question.
    void the_selection_shows_before_decoding() {
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        ask(kQa);
        w_->chat().activate_citation(1, 0);
        DocumentView* view = w_->document_panel()->view();
        QVERIFY(view->highlighted_range().first >= 0);
        // At the first streamed text of the next answer, the inspector already shows its question.
        QString shown_at_first_text;
        bool highlight_at_first_text = true;
        ChatModel& messages = w_->chat_model();
        const auto c = connect(&messages, &QAbstractItemModel::dataChanged, this, [&] {
            if (!shown_at_first_text.isNull()) return;
            shown_at_first_text = w_->inspector()->snapshot().question;
            highlight_at_first_text = view->highlighted_range().first >= 0;
        });
        // Disconnected also when a check fails and returns early: the lambda reads this frame.
        const auto disconnect_c = qScopeGuard([&] { disconnect(c); });
        ask(kQb);
        disconnect(c);
        // One check for both, so a failure says which of 17 and 26 is wrong.
        QVERIFY2(shown_at_first_text == kQb && !highlight_at_first_text,
                 qPrintable(QString("at the first streamed text the inspector showed \"%1\" (17) and the "
                                    "previous answer's citation was %2 (26)")
                                .arg(shown_at_first_text,
                                     highlight_at_first_text ? "still highlighted" : "cleared")));
    }

    // Issue 22/23: the demo model names its heads (snapdoc.attention.head_roles); the inspector showed
    // only "L1 h1". Now a strip with named query heads carries the names (drawn on the strip, in the
    // tooltip and in the head detail); an unnamed one keeps its layer/head label only (HeadRoles below:
    // since issue 22's second round every head of the demo model has a name). (After
    // the_selection_shows_before_decoding, so a selection is shown; per KV head, the default: cache
    // head 1 of layer 1 pools query heads 2 and 3, "fact lookup" and "fact lookup (copy)".)
    void the_inspector_names_the_heads_the_model_names() {
        InspectorPanel* inspector = w_->inspector();
        RetentionGrid* grid = inspector->grid();
        QVERIFY(inspector->snapshot().valid());
        QCOMPARE(grid->geometry().heads, 2);
        QCOMPARE(grid->role_of(1, 1), QString("fact lookup / fact lookup (copy)"));
        QCOMPARE(grid->role_of(0, 0), QString("previous token / fact values"));
        QCOMPARE(grid->role_of(2, 0), QString("entity words / numbers"));  // unnamed before issue 22's second round
        // In a tall window the strips have room for a line of text (at 1400×900 they are 9 px: the names
        // are then in the tooltip and head detail only).
        const QSize size = w_->size();
        w_->resize(1600, 1400);
        QVERIFY(wait_until(
            [&] { return grid->geometry().layout.strip_height >= QFontMetrics(grid->font()).height(); }));
        const auto labels = grid->role_labels();
        QVERIFY2(std::any_of(labels.begin(), labels.end(),
                             [](const AxisLabel& l) { return l.text.startsWith("fact lookup"); }),
                 "no strip shows its role");
        const auto strips = grid->strip_labels();
        QVERIFY(
            std::any_of(strips.begin(), strips.end(), [](const AxisLabel& l) { return l.text == "L2 h0"; }));
        // The tooltip and the head detail of the strip under a point of layer 1, head 1.
        const int y1 = grid->geometry().strip_top(1, 1) + 2;
        const QPoint at(RetentionGrid::kLabelWidth + grid->plot_width() / 2, y1);
        QVERIFY2(grid->tooltip_at(at).startsWith("Layer 1, head 1 (fact lookup / fact lookup (copy)) · "),
                 qPrintable(grid->tooltip_at(at)));
        const QPoint layer2(at.x(), grid->geometry().strip_top(2, 0) + 2);
        QVERIFY2(grid->tooltip_at(layer2).startsWith("Layer 2, head 0 (entity words / numbers) · "),
                 qPrintable(grid->tooltip_at(layer2)));
        QTest::mouseClick(grid, Qt::LeftButton, {}, at);
        QVERIFY2(inspector->detail()->summary().startsWith(
                     "Layer 1, head 1 (fact lookup / fact lookup (copy)): kept"),
                 qPrintable(inspector->detail()->summary()));
        w_->resize(size);
        // Per query head a strip is one head and shows its own name.
        const HeadRoles roles(QStringList{"a", "", "b", "b"}, 4);
        QCOMPARE(roles.of(0, 1, 4), QString());
        QCOMPARE(roles.of(0, 2, 4), QString("b"));
        QCOMPARE(roles.of(0, 1, 2), QString("b"));                  // per KV head: "b" once
        QCOMPARE(roles.of(1, 0, 4), QString());                     // no layer 1
        QVERIFY(HeadRoles(QStringList{"a", "b", "c"}, 4).empty());  // not a whole number of layers
    }

    // 5: at budget 180 a head kept 222 (the recent turns are kept whole on top), and the estimate
    // (≈ 720 KiB) was not the actual (920 KiB). Now the budget's tooltip says what it counts, and
    // the estimate counts the turns kept whole: it is the answer's cache. (After the two turns of
    // the_selection_shows_before_decoding.)
    void the_budget_says_what_it_counts() {
        const SelectionSnapshot& snap = w_->inspector()->snapshot();
        QVERIFY(snap.valid());
        QVERIFY(snap.selection->compressed);
        // The earlier turn is kept whole on top of the budget: a head keeps more than the budget
        // (what the issue saw: 222 kept at budget 180).
        const Selection& sel = *snap.selection;
        const int kept = static_cast<int>(sel.layers[0][0].kept.size()) + sel.window;
        QVERIFY2(
            kept > sel.config.budget,
            qPrintable(QString("%1 kept at budget %2: no turn kept whole").arg(kept).arg(sel.config.budget)));
        const QString estimate = child<QLabel>(*w_, "budgetMemoryLabel")->text();
        const QString actual = QString::fromStdString(format_bytes(snap.kv_bytes_compressed));
        QVERIFY2(estimate.startsWith("≈ " + actual + " KV cache"), qPrintable(estimate + " vs " + actual));
        QVERIFY2(estimate.contains("kept whole"), qPrintable(estimate));
        QVERIFY(child<QSpinBox>(*w_, "budgetSpin")->toolTip().contains("kept whole on top"));
        QVERIFY(w_->inspector()->memory_text().startsWith("KV cache (f16): " + actual + " compressed"));
    }

    // 4: "full KV 3.5 MiB" in the document line against "7.0 MiB full" in the panel: two quantities
    // with one name. Each figure now says what it is (the f16 store, the f16 cache attention reads).
    void each_kv_figure_names_its_basis() {
        const auto& ready = w_->documents().ready_info();
        QVERIFY(ready);
        const QString facts = w_->document_panel()->facts_text();
        const QString store = QString::fromStdString(format_bytes(ready->full_store_bytes));
        QVERIFY2(facts.contains("K/V store " + store + " (f16)"), qPrintable(facts));
        QVERIFY2(!facts.contains("full KV"), qPrintable(facts));
        QVERIFY(w_->inspector()->memory_text().contains("(f16)"));
        QVERIFY(child<QLabel>(*w_, "budgetMemoryLabel")->text().contains("(f16)"));
    }

    // 27: on a 1.8K-token document the slider ran to the model's 131K context (one 200 px drag:
    // 60 → 30,233). It spans the prompt now.
    void the_budget_slider_spans_the_document() {
        auto* spin = child<QSpinBox>(*w_, "budgetSpin");
        auto* slider = child<QSlider>(*w_, "budgetSlider");
        const int prompt = w_->inspector()->snapshot().selection->prompt_len;
        QVERIFY2(spin->maximum() <= std::max(prompt, spin->value()),
                 qPrintable(QString("maximum %1 for a %2-token prompt").arg(spin->maximum()).arg(prompt)));
        QVERIFY(spin->maximum() >= w_->documents().ready_info()->document_tokens);
        // A fifth of the slider moves the budget by less than the document, not by tens of thousands.
        const int before = spin->value();
        slider->setValue(std::min(slider->maximum(), slider->value() + slider->maximum() / 5));
        QVERIFY2(std::abs(spin->value() - before) < prompt,
                 qPrintable(QString("%1 -> %2").arg(before).arg(spin->value())));
        QVERIFY(wait_until([&] { return !w_->chat().busy(); }));
    }

    // 28: kernel 4 silently became 5, and window 0 silently stayed 8: the panel says so now.
    void adjusted_values_are_said() {
        auto* controls = w_->inspector()->controls();
        // The note by its object name, as a user reads it (shown or not).
        auto* note = w_->findChild<QLabel*>("snapkvAdjustedNote");
        QVERIFY2(note, "no label snapkvAdjustedNote: the panel has nowhere to say a value was adjusted");
        auto adjustment_text = [&] { return note->isHidden() ? QString() : note->text(); };
        auto* kernel = child<QSpinBox>(*w_, "kernelSpin");
        kernel->setValue(4);
        QCOMPARE(kernel->value(), 5);
        QVERIFY2(adjustment_text().contains("Kernel 4 is even") && adjustment_text().contains("5 is used"),
                 qPrintable(adjustment_text()));
        auto* window = child<QSpinBox>(*w_, "windowSpin");
        window->setValue(0);
        QCOMPARE(window->value(), 1);
        QCOMPARE(controls->config().window, 1);
        QVERIFY2(adjustment_text().contains("Window 0 is out of range"), qPrintable(adjustment_text()));
        window->setValue(8);
        QVERIFY(adjustment_text().isEmpty());
        kernel->setValue(7);
        QVERIFY(wait_until([&] { return !w_->chat().busy(); }));
    }

    // 3: Compare full vs SnapKV ran the question without the conversation's earlier turns (1803
    // positions against 1867 in the chat), then replaced the inspector's selection with its own;
    // in per-query-head mode its "full" size was twice the panel's. (In the two-turn conversation of
    // the_selection_shows_before_decoding.)
    void compare_asks_as_the_chat_does() {
        InspectorPanel* insp = w_->inspector();
        for (int gqa : {0, 1}) {
            if (gqa == 1) {
                const int n = w_->chat().reselects_done();
                child<QComboBox>(*w_, "gqaCombo")->setCurrentIndex(1);
                QVERIFY2(wait_until([&] { return w_->chat().reselects_done() > n; }, 10000),
                         qPrintable(w_->chat_panel()->status_text()));
            }
            const SelectionSnapshot before = insp->snapshot();
            QCOMPARE(before.question, kQb);
            w_->chat().compare(QString());
            QVERIFY(wait_until([&] { return !w_->chat().busy(); }));
            auto* dialog = w_->findChild<CompareDialog*>();
            QVERIFY(dialog);
            QString full;
            for (QLabel* l : dialog->findChildren<QLabel*>())
                if (l->text().startsWith("<b>Full cache</b>")) full = l->text();
            const QString expected = QString::fromStdString(format_bytes(before.kv_bytes_full));
            QVERIFY2(full.contains("KV " + expected + ","), qPrintable(full + " vs " + expected));
            // The inspector still shows the chat's own question.
            QCOMPARE(insp->snapshot().question_serial, before.question_serial);
            dialog->close();
            QVERIFY(wait_until([&] { return !w_->findChild<CompareDialog*>(); }, 5000));
        }
        const int n = w_->chat().reselects_done();
        child<QComboBox>(*w_, "gqaCombo")->setCurrentIndex(0);
        QVERIFY2(wait_until([&] { return w_->chat().reselects_done() > n; }, 10000),
                 qPrintable(w_->chat_panel()->status_text()));
    }

    // 9: a citation's excerpt and highlight could start mid-word ("igation" of "Navigation"): the
    // span is widened to whole words. The real chat path (ChatController resolves through this).
    void citations_snap_to_words() {
        const QString text = QStringLiteral("Site Navigation menu. The harbour opens at nine.");
        TokenTextMap map;
        // Tokens as a tokenizer may cut them: "Site", " Nav", "igation", " menu", "." ...
        const std::vector<std::pair<int, int>> pieces = {{0, 4}, {4, 8}, {8, 15}, {15, 20}, {20, 21}};
        for (const auto& [b, e] : pieces) {
            map.begin.push_back(b);
            map.end.push_back(e);
        }
        map.first_text = 0;
        map.last_text = static_cast<int>(pieces.size()) - 1;
        map.exact = true;
        // A span from "igation" to " menu" (tokens 2..3).
        const auto cits = resolve_citations({{2, 3, 0.5}}, &map, text);
        QCOMPARE(cits.size(), std::size_t{1});
        QCOMPARE(text.mid(cits[0].begin, cits[0].end - cits[0].begin), QString("Navigation menu"));
        QVERIFY2(cits[0].excerpt.startsWith("Navigation"), qPrintable(cits[0].excerpt));
    }

    // 10: every demo answer also cited one or two unrelated passages at ~1% (a fixed top-k). Only
    // passages that stand out from the diffuse background are shown now: each of these answers, each
    // asked in a new conversation as a user would, cites one passage, and it is the fact it states.
    void answers_cite_only_what_stands_out() {
        const std::pair<QString, QString> asked[] = {
            {kQa, "7003"},
            {"What is the invoice number for the stone warehouse?", "6436"},
            {"What is the account number for the upper office?", "4807"}};
        for (const auto& [question, value] : asked) {
            QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
            ask(question);
            const ChatMessage& answer = w_->chat_model().at(w_->chat_model().rowCount() - 1);
            QStringList cited;
            for (const CitationView& c : answer.citations)
                cited << QString("%1% \"%2\"").arg(100 * c.weight, 0, 'f', 1).arg(c.excerpt.left(60));
            const QString what = question + " -> " + answer.text + " cites: " + cited.join(" | ");
            QVERIFY2(answer.text.contains(value), qPrintable(what));
            QVERIFY2(answer.citations.size() == 1, qPrintable(what));
            QVERIFY2(answer.citations[0].excerpt.contains(value), qPrintable(what));
        }
    }

    // 13: a search that left out the open conversation blanked the picker while the chat kept
    // showing it.
    void a_search_says_the_open_conversation_does_not_match() {
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        ask("What is the serial number for the new office?");
        auto* picker = child<QComboBox>(*w_, "conversationPicker");
        auto* search = child<QLineEdit>(*w_, "conversationSearch");
        search->setText("alarm code");  // the conversation of the_selection_shows_before_decoding
        QVERIFY(w_->conversation_model().rowCount() >= 1);
        QCOMPARE(picker->currentIndex(), -1);
        QVERIFY2(picker->placeholderText().contains("What is the serial number for the new office?") &&
                     picker->placeholderText().contains("does not match"),
                 qPrintable(picker->placeholderText()));
        search->clear();
        QVERIFY(picker->currentIndex() >= 0);
        QVERIFY(picker->placeholderText().isEmpty());
    }

    // 21: the difference view's orange (window and question) was missing from its legend.
    void the_difference_legend_has_the_window_swatch() {
        const HeatmapPalette p;
        QVERIFY2(heatmap_legend_html(p, true).contains(QColor(p.window).name()),
                 qPrintable(heatmap_legend_html(p, true)));
    }

    // 29: a conversation's line said "1 messages".
    void a_conversation_line_says_1_message() {
        ConversationModel one;
        one.set_conversations({{1, 1, "A title", "m", 1700000000, 1}});
        const QString line = one.index(0).data().toString();
        QVERIFY2(line.contains("1 message ·") && !line.contains("1 messages"), qPrintable(line));
    }

    // 22: Regenerate in an empty conversation did nothing, silently; Copy and Export selection were
    // enabled with nothing to act on; "Whole prompt" meant reset zoom.
    void actions_are_enabled_only_with_something_to_act_on() {
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        QVERIFY(!child<QPushButton>(*w_, "regenerateButton")->isEnabled());
        QVERIFY(!child<QPushButton>(*w_, "copyButton")->isEnabled());
        QVERIFY(!child<QPushButton>(*w_, "exportSelectionButton")->isEnabled());
        QCOMPARE(child<QPushButton>(*w_, "heatmapResetZoom")->text(), QString("Reset zoom"));
        ask(kQa);
        QVERIFY(child<QPushButton>(*w_, "regenerateButton")->isEnabled());
        QVERIFY(child<QPushButton>(*w_, "copyButton")->isEnabled());
        QVERIFY(child<QPushButton>(*w_, "exportSelectionButton")->isEnabled());
        // 23: the per-conversation system prompt looked like a plain label.
        auto* prompt = child<QPushButton>(*w_, "systemPromptButton");
        QVERIFY(!prompt->isFlat());
        QVERIFY2(prompt->text().endsWith("Edit…"), qPrintable(prompt->text()));
    }

    // 24: exports showed today's system prompt for the whole conversation, regenerated versions as
    // bare "## Answer" blocks, and JSON had no version field.
    void exports_name_versions_and_system_prompts() {
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        ask(kQa);
        QSignalSpy done(&w_->chat(), &ChatController::answerDone);
        QTest::mouseClick(child<QPushButton>(*w_, "regenerateButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return done.count() == 1; }));
        w_->chat().set_system_prompt("Answer briefly.");
        const QString md = dir_.path() + "/export.md", js = dir_.path() + "/export.json";
        w_->chat().export_to(md);
        w_->chat().export_to(js);
        QFile fm(md), fj(js);
        QVERIFY(fm.open(QIODevice::ReadOnly) && fj.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(fm.readAll());
        QVERIFY2(text.contains("## Answer · version 1 of 2") && text.contains("## Answer · version 2 of 2"),
                 qPrintable(text));
        // Both answers were asked with the default (empty) system prompt: today's prompt is named
        // neither in the header nor at an answer.
        QVERIFY2(!text.contains("Answer briefly."), qPrintable(text));
        const auto j = nlohmann::json::parse(fj.readAll().toStdString());
        int versions = 0;
        for (const auto& m : j["messages"])
            if (m["role"] == "assistant") {
                QCOMPARE(m["versions"].get<int>(), 2);
                QCOMPARE(m["system_prompt"].get<std::string>(), std::string());
                versions += m["version"].get<int>();
            }
        QCOMPARE(versions, 3);  // versions 1 and 2
        w_->chat().set_system_prompt(QString());
    }

    // 29: lower-case error texts beside capitalised titles.
    void error_texts_are_sentences() {
        dialogs_->errors.clear();
        w_->open_document(dir_.path() + "/no-such-file.txt");
        QVERIFY(wait_until([&] { return !dialogs_->errors.isEmpty(); }));
        QVERIFY2(dialogs_->errors.last().startsWith("Cannot open document: Document "),
                 qPrintable(dialogs_->errors.last()));
    }

    // 16: a suggested question clicked while the document was read landed in the disabled box and
    // waited for a manual Ask: it is asked once the document is ready. 29: meanwhile the KV memory
    // line said "load a model and a document" with both loaded.
    void a_suggestion_clicked_while_reading_is_asked_when_ready() {
        const QString other = dir_.path() + "/other.txt";
        QFile f(other);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(snapdoc::test::sample_text(300).toUtf8());
        f.close();
        QSignalSpy ready(&w_->documents(), &DocumentController::documentReady);
        w_->open_document(other);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));
        const int64_t report = [&] {
            for (const auto& d : store_->documents())
                if (d.path == doc_.toStdString()) return d.id;
            return int64_t{-1};
        }();
        QVERIFY(report >= 0);
        QString clicked, estimate_while_reading;
        bool started = false;
        const auto c = connect(&w_->documents(), &DocumentController::shown, this, [&] {
            const auto buttons = w_->findChildren<QPushButton*>("suggestionButton");
            if (buttons.isEmpty() || w_->chat().can_ask()) return;
            clicked = buttons[0]->text();
            QTest::mouseClick(buttons[0], Qt::LeftButton);
        });
        const auto disconnect_c = qScopeGuard([&] { disconnect(c); });
        const auto c2 = connect(&w_->documents(), &DocumentController::prefillStarted, this, [&] {
            estimate_while_reading = child<QLabel>(*w_, "budgetMemoryLabel")->text();
            started = true;
        });
        const auto disconnect_c2 = qScopeGuard([&] { disconnect(c2); });
        QSignalSpy done(&w_->chat(), &ChatController::answerDone);
        w_->documents().show(report);
        disconnect(c);
        QVERIFY2(!clicked.isEmpty(), "no suggestion button to click while the document was read");
        // 16 (the click is taken visibly: the status line says the question is asked once ready) and
        // 29 (the KV line while reading) in one check, so a failure says which is wrong.
        const QString status = w_->chat_panel()->status_text();  // as the click left it
        QVERIFY(wait_until([&] { return started; }, 30000));
        const bool taken = status.contains(clicked) && status.contains("as soon as");
        const bool kv_line_ok = !estimate_while_reading.contains("load a model and a document");
        QVERIFY2(taken && kv_line_ok, qPrintable(QString("status after the click (16): \"%1\"; KV line while "
                                                         "reading (29): \"%2\"")
                                                     .arg(status, estimate_while_reading)));
        QVERIFY(wait_until([&] { return done.count() == 1; }));
        disconnect(c2);
        QCOMPARE(w_->chat_model().at(w_->chat_model().rowCount() - 2).text, clicked);
    }

    // 14: the library re-sorted right after a click, so the item under the cursor changed; arrow
    // keys moved the highlight away from the open document without opening it.
    void the_library_keeps_its_order_and_arrows_open() {
        auto* list = child<QListView>(*w_, "libraryView");
        LibraryModel& library = w_->library_model();
        QVERIFY(library.rowCount() >= 2);
        // Click the last row (not the open document): it opens and stays the last row (it used to
        // jump to the top as the most recently opened).
        const int row = library.rowCount() - 1;
        const int64_t id = library.at(row).id;
        if (w_->documents().current_id() == id) {
            w_->documents().show(library.at(0).id);
            QVERIFY(wait_until([&] { return w_->documents().ready(); }));
        }
        // A second later, as a user clicks: opening times are stored in whole seconds, so documents
        // opened within one second kept their order even when the list re-sorted by last opening.
        QTest::qWait(1100);
        QSignalSpy shown(&w_->documents(), &DocumentController::shown);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualRect(library.index(row)).center());
        QVERIFY(wait_until([&] { return shown.count() == 1; }));
        QCOMPARE(w_->documents().current_id(), id);
        QCOMPARE(library.row_of(id), row);
        QCOMPARE(list->indexAt(list->visualRect(library.index(row)).center()).row(), row);
        // Also once it is read: the library reloads then, and re-sorted by last opening.
        QVERIFY(wait_until([&] { return w_->documents().ready(); }));
        QVERIFY2(library.row_of(id) == row,
                 qPrintable(QString("the clicked document moved from row %1 to %2 once read")
                                .arg(row)
                                .arg(library.row_of(id))));
        // Up opens the document above it.
        const int64_t above = library.at(row - 1).id;
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Up);
        QCOMPARE(list->currentIndex().row(), row - 1);
        // The library resets while the move waits to open (as when the reading just opened becomes
        // ready, which reloads the library): the move still opens the row it went to. It used to put the
        // highlight back on the open document, and nothing opened.
        library.set_documents(store_->documents());
        QCOMPARE(list->currentIndex().row(), row - 1);
        QVERIFY(wait_until([&] { return w_->documents().current_id() == above; }, 5000));
        QVERIFY(wait_until([&] { return w_->documents().ready(); }));
    }

    // 15: the cache-cap note rounded to whole MiB: "the file (5 MiB) is larger than the cap (5 MiB)"
    // for a 6.0 MiB file.
    void the_cache_cap_note_does_not_round_to_equal() {
        QTemporaryDir cache;
        w_->settings().generation.kv_cache = true;
        w_->settings().generation.kv_cache_cap_mb = 3;  // the report's K/V store is about 3.5 MiB
        w_->set_kv_cache_dir(cache.path());
        const QString copy = dir_.path() + "/report-for-the-cache.txt";
        QVERIFY(QFile::copy(doc_, copy));
        QSignalSpy ready(&w_->documents(), &DocumentController::documentReady);
        w_->open_document(copy);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));
        const QString note = ready.last().at(0).value<DocumentReady>().kv_cache_note;
        w_->set_kv_cache_dir(QString());
        QVERIFY2(note.contains("larger than the K/V cache cap (3.0 MiB)"), qPrintable(note));
        QVERIFY2(!note.contains("(3.0 MiB) is larger"), qPrintable(note));
    }

    // 6: a stopped prefill could not be resumed: clicking the selected document did nothing.
    void a_stopped_reading_resumes_on_click() {
        // Four copies of the report: long enough that the stop lands during the prefill.
        QFile in(doc_);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray text = in.readAll();
        const QString big = dir_.path() + "/four-reports.txt";
        QFile out(big);
        QVERIFY(out.open(QIODevice::WriteOnly));
        for (int i = 0; i < 4; ++i) out.write(text);
        out.close();
        DocumentController& docs = w_->documents();
        QSignalSpy failed(&docs, &DocumentController::documentFailed);
        QSignalSpy ready(&docs, &DocumentController::documentReady);
        const auto c = connect(&docs, &DocumentController::prefillProgress, this, [&] { docs.stop(); });
        const auto disconnect_c = qScopeGuard([&] { disconnect(c); });
        w_->open_document(big);
        QVERIFY(wait_until([&] { return failed.count() + ready.count() > 0; }));
        disconnect(c);
        if (ready.count() > 0) QSKIP("the prefill finished before the stop reached it");
        const QString hint = w_->document_panel()->facts_text();
        // A click on the (selected) document reads it again.
        auto* list = child<QListView>(*w_, "libraryView");
        const QModelIndex current = list->currentIndex();
        QVERIFY(current.isValid());
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(current).center());
        QVERIFY2(wait_until([&] { return ready.count() == 1; }, 60000),
                 "a click on the stopped document did not read it again");
        QVERIFY(docs.ready());
        // And the stopped line said how to resume.
        QVERIFY2(hint.contains("Click it in the library"), qPrintable(hint));
    }

    // Issue 37: a right-click on a library item moved the highlight without opening it, and the
    // next question went to the document still open. Now it opens the item's menu and the highlight
    // stays on the open document until "Open" is chosen.
    void a_right_click_opens_the_items_menu_not_a_silent_highlight() {
        auto* list = child<QListView>(*w_, "libraryView");
        LibraryModel& library = w_->library_model();
        QVERIFY(library.rowCount() >= 2);
        QVERIFY(wait_until([&] { return w_->documents().ready(); }));
        const int64_t open_id = w_->documents().current_id();
        const int other = library.row_of(open_id) == 0 ? 1 : 0;
        const int64_t other_id = library.at(other).id;
        auto right_click = [&](const QString& choose) {
            QStringList items;
            QTimer poll;  // the menu is modal: looked at from inside its event loop
            poll.setInterval(10);
            connect(&poll, &QTimer::timeout, this, [&] {
                auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
                if (!menu) return;
                poll.stop();
                items << "menu " + menu->objectName() + ":";
                QAction* chosen = nullptr;
                for (QAction* a : menu->actions()) {
                    if (a->isSeparator()) continue;
                    items << a->text();
                    if (a->text() == choose) chosen = a;
                }
                menu->close();
                if (chosen) chosen->trigger();
            });
            poll.start();
            const QPoint at = list->visualRect(library.index(other)).center();
            QTest::mouseClick(list->viewport(), Qt::RightButton, {}, at);
            if (items.isEmpty()) {  // a platform that sends no context-menu event on the press
                QContextMenuEvent e(QContextMenuEvent::Mouse, at, list->viewport()->mapToGlobal(at));
                QApplication::sendEvent(list->viewport(), &e);
            }
            poll.stop();
            return items;
        };
        const QStringList items = right_click(QString());
        QCOMPARE(items, QStringList({"menu libraryItemMenu:", "Open", "Remove from library"}));
        QCOMPARE(list->currentIndex().data(LibraryModel::IdRole).toLongLong(), open_id);
        QCOMPARE(w_->documents().current_id(), open_id);

        QSignalSpy shown(&w_->documents(), &DocumentController::shown);
        right_click("Open");
        QVERIFY(wait_until([&] { return shown.count() == 1; }));
        QCOMPARE(w_->documents().current_id(), other_id);
        QVERIFY(wait_until([&] { return w_->documents().ready(); }));
        QCOMPARE(list->currentIndex().data(LibraryModel::IdRole).toLongLong(), other_id);
    }

    // 11: a conversation's system prompt inflated the document's own count (1,817 instead of
    // 1,785).
    void library_counts_are_the_texts_own() {
        LibraryModel& library = w_->library_model();
        // The report, read (a test before may have left another document open, or a stopped one).
        // (Under either name: the cache-cap test opens a copy of it, which the store may take for the
        // same document.)
        int64_t id = -1;
        for (const auto& d : store_->documents())
            if (d.path == doc_.toStdString() ||
                QString::fromStdString(d.path).endsWith("/report-for-the-cache.txt"))
                id = d.id;
        QVERIFY(id >= 0);
        if (w_->documents().current_id() != id || !w_->documents().ready()) {
            w_->documents().show(id);
            QVERIFY(
                wait_until([&] { return w_->documents().current_id() == id && w_->documents().ready(); }));
        }
        auto count_of = [&](int64_t doc) {
            const auto rec = store_->document(doc);
            return rec && rec->token_count ? *rec->token_count : -1;
        };
        const int plain = count_of(id);
        QVERIFY(plain > 0);
        QTest::mouseClick(child<QPushButton>(*w_, "newConversationButton"), Qt::LeftButton);
        w_->chat().set_system_prompt("Answer with the number only, and nothing else at all.");
        QSignalSpy ready(&w_->documents(), &DocumentController::documentReady);
        ask(kQa);
        QCOMPARE(count_of(id), plain);
        const QString facts = library.index(library.row_of(id)).data(LibraryModel::FactsRole).toString();
        QVERIFY2(facts.contains(QLocale(QLocale::English).toString(plain) + " tokens"), qPrintable(facts));
    }

    // 11: the library's counts stayed from the previous model after a model change. 12: a document
    // refused as longer than the model's context: docs/user-guide.md says the compression panel says why;
    // it kept showing the estimate for the document read before. (Last: it loads another model.)
    void a_model_change_says_why_and_drops_old_counts() {
        LibraryModel& library = w_->library_model();
        if (snapdoc::test::tiny_model_path().isEmpty()) QSKIP("no stories260K fixture for the model change");
        QSignalSpy loaded(&w_->models(), &ModelController::loaded);
        QSignalSpy refused(&w_->documents(), &DocumentController::documentFailed);
        w_->open_model(snapdoc::test::tiny_model_path(), false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        // The tiny model's context is shorter than the report: refused.
        QVERIFY(wait_until([&] { return refused.count() > 0; }));
        // Every document counted by the demo model now shows no count (or the tiny model's own).
        QStringList stale;
        for (int row = 0; row < library.rowCount(); ++row) {
            const auto& rec = library.at(row);
            const QString f = library.index(row).data(LibraryModel::FactsRole).toString();
            if (rec.token_model == w_->models().info()->path.toStdString()) continue;
            if (f.contains("tokens")) stale << f;
        }
        // 12: a short document the tiny model reads (the panel then estimates for it), then the
        // long one again: refused, and the panel says why instead of the short one's estimate.
        const int64_t refused_id = w_->documents().current_id();
        const QString small = dir_.path() + "/small.txt";
        QFile f(small);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(snapdoc::test::sample_text(80).toUtf8());
        f.close();
        QSignalSpy ready(&w_->documents(), &DocumentController::documentReady);
        w_->open_document(small);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));
        const QString estimate = child<QLabel>(*w_, "budgetMemoryLabel")->text();
        const int refusals = refused.count();
        w_->documents().show(refused_id);
        QVERIFY(wait_until([&] { return refused.count() > refusals; }));
        const QString why = child<QLabel>(*w_, "budgetMemoryLabel")->text();
        const bool says_why =
            why.startsWith("KV memory: none. The document is") && why.contains("context");
        // One check for both, so a failure says which of 11 and 12 is wrong.
        QVERIFY2(says_why && stale.isEmpty(),
                 qPrintable(QString("counts of the previous model still shown (11): %1; after \"%2\", the "
                                    "refused document's panel says (12): \"%3\"")
                                .arg(stale.isEmpty() ? QString("none") : stale.join(" | "), estimate, why)));
        QVERIFY(child<QLabel>(*w_, "budgetMemoryLabel")->isVisible());
    }
};

QTEST_MAIN(TestRound3Minor)
#include "test_round3_minor.moc"
