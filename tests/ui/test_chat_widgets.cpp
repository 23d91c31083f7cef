// The chat widgets without an engine: Markdown answers (a code block in a fixed-pitch font, lists)
// measured at the height they are painted; a card painted in a stale, shorter rectangle does not
// draw over the card below (the "stray size fragment" in a new answer card: the previous answer's
// statistics line, "KV … MiB of … MiB", painted past its card before the view re-laid it out);
// Enter sends and Shift+Enter breaks the line; Copy copies an answer, never a question; citations
// under an answer are clickable; the history sent to the engine skips answers that are empty.
#include <QClipboard>
#include <QPainter>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextList>
#include <QtTest>
#include <cmath>

#include "app/services/conversation_export.h"
#include "tests/ui/support/glyph_widths.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/chat_delegate.h"
#include "ui/chat/chat_panel.h"
#include "ui/chat/chat_view.h"
#include "ui/chat/citation_format.h"
#include "ui/chat/question_edit.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"

using namespace snapdoc::ui;

namespace {

ChatMessage msg(const char* role, const QString& text, const QString& meta = {}) {
    ChatMessage m;
    m.role = QString::fromLatin1(role);
    m.text = text;
    m.meta = meta;
    return m;
}

ChatMessage answer(const QString& text, const QString& meta, std::vector<CitationView> citations) {
    ChatMessage m = msg("assistant", text, meta);
    m.citations = std::move(citations);
    return m;
}

// The position -> text map of `text` in 4-character tokens, after `template_tokens` positions of no text.
snapdoc::TokenTextMap four_char_tokens(const QString& text, int template_tokens) {
    snapdoc::TokenTextMap map;
    map.begin.assign(static_cast<std::size_t>(template_tokens), -1);
    map.end.assign(static_cast<std::size_t>(template_tokens), -1);
    for (int i = 0; i < text.size(); i += 4) {
        map.begin.push_back(i);
        map.end.push_back(std::min<int>(i + 4, text.size()));
    }
    map.first_text = template_tokens;
    map.last_text = map.size() - 1;
    return map;
}

// A view of `model` on screen (the card layout needs a shown viewport).
std::unique_ptr<ChatView> shown_view(ChatModel& model) {
    auto view = std::make_unique<ChatView>();
    view->setModel(&model);
    view->resize(500, 500);
    view->show();
    return view;
}

const QString kMarkdown = QStringLiteral(
    "Here is how:\n\n```cpp\nint main() {\n    return 0;\n}\n```\n\n- first item\n- second item\n\nDone.");

}  // namespace

class TestChatWidgets : public QObject {
    Q_OBJECT

private slots:
    void answers_render_markdown_at_their_measured_height() {
        ChatModel model;
        model.append(msg("user", "How? ```not code```"));
        model.append(msg("assistant", kMarkdown, "12 tokens · KV 1.2 MiB of 9.6 MiB"));
        ChatView view;
        view.setModel(&model);
        view.resize(420, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QModelIndex answer = model.index(1);
        const auto doc = ChatDelegate::body_document(answer, view.font(), 380);
        bool fixed_pitch_code = false, list = false;
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
            if (b.text().contains("return 0;") && (b.charFormat().fontFixedPitch() ||
                                                    b.blockFormat().hasProperty(QTextFormat::BlockCodeFence)))
                fixed_pitch_code = true;
            if (b.textList() && b.text() == "first item") list = true;
            QVERIFY2(!b.text().contains("```"), qPrintable(b.text()));  // fences are markup, not text
        }
        QVERIFY(fixed_pitch_code);
        QVERIFY(list);
        // The code is drawn in a face whose glyphs are one width, whichever fonts are installed
        // (Qt's reader names the desktop's fixed font; the delegate pins the face that draws so).
        const int code_at = doc->toPlainText().indexOf("return 0;");
        QTextCursor code_cursor(doc.get());
        code_cursor.setPosition(code_at + 1);
        const QFont code_font = code_cursor.charFormat().font();
        QVERIFY2(snapdoc::test::drawn_fixed_pitch(code_font),
                 qPrintable(snapdoc::test::glyph_widths(code_font)));
        // The question is shown as typed (no Markdown).
        const auto q = ChatDelegate::body_document(model.index(0), view.font(), 380);
        QVERIFY(q->toPlainText().contains("```not code```"));
        // The card is as tall as what is painted in it: header + body + meta, margins included.
        auto* d = qobject_cast<ChatDelegate*>(view.itemDelegate());
        QStyleOptionViewItem opt;
        opt.initFrom(&view);
        opt.widget = &view;
        opt.rect = view.visualRect(answer);
        const auto l = d->layout(opt, answer);
        QCOMPARE(view.visualRect(answer).height(), l.height);
        const auto painted = ChatDelegate::body_document(answer, view.font(), l.body.width());
        QCOMPARE(l.body.height(), static_cast<int>(std::ceil(painted->size().height())));
        QVERIFY(l.meta.bottom() < l.card.bottom());
    }

    // Defect (issue 12): a stray size fragment in a new answer card.
    void a_card_never_paints_outside_its_rectangle() {
        ChatModel model;
        model.append(msg("assistant", "The batch number for the green office is 4417.",
                         "12 tokens · question prefill 850 tok/s · generation 42.1 tok/s · KV 1.2 MiB of 9.6 MiB"));
        ChatView view;
        view.setModel(&model);
        view.resize(300, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto* d = qobject_cast<ChatDelegate*>(view.itemDelegate());
        QStyleOptionViewItem opt;
        opt.initFrom(&view);
        opt.widget = &view;
        opt.font = view.font();
        // A rectangle laid out before the meta line was there (the view re-lays out later).
        opt.rect = QRect(0, 0, view.viewport()->width(), 60);
        QImage image(view.viewport()->width(), 300, QImage::Format_ARGB32);
        image.fill(Qt::transparent);
        {
            QPainter p(&image);
            d->paint(&p, opt, model.index(0));
        }
        for (int y = opt.rect.bottom() + 1; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                QVERIFY2(qAlpha(image.pixel(x, y)) == 0,
                         qPrintable(QString("painted at (%1, %2), below the card's rectangle").arg(x).arg(y)));
    }

    void enter_sends_and_shift_enter_breaks_the_line() {
        QuestionEdit edit;
        edit.show();
        QSignalSpy sent(&edit, &QuestionEdit::submitted);
        QTest::keyClicks(&edit, "first line");
        QTest::keyClick(&edit, Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClicks(&edit, "second");
        QCOMPARE(sent.count(), 0);
        QCOMPARE(edit.text(), QString("first line\nsecond"));
        QTest::keyClick(&edit, Qt::Key_Return);
        QCOMPARE(sent.count(), 1);
        QCOMPARE(edit.text(), QString("first line\nsecond"));  // Enter adds no newline
        QTest::keyClick(&edit, Qt::Key_Enter);  // keypad Enter too
        QCOMPARE(sent.count(), 2);
        // The panel asks with the whole multi-line text.
        ChatModel model;
        ConversationModel conversations;
        ChatPanel panel(&model, &conversations);
        panel.set_state(false, true, {});
        panel.show();
        QSignalSpy asked(&panel, &ChatPanel::askRequested);
        QTest::keyClicks(panel.question_edit(), "a");
        QTest::keyClick(panel.question_edit(), Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClicks(panel.question_edit(), "b");
        QTest::keyClick(panel.question_edit(), Qt::Key_Return);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.at(0).at(0).toString(), QString("a\nb"));
    }

    // Defect (issue 12): Copy copied the last card clicked even when it was a question.
    void copy_copies_an_answer_never_a_question() {
        ChatModel model;
        model.append(msg("user", "Q1"));
        model.append(msg("assistant", "A1"));
        model.append(msg("user", "Q2"));
        model.append(msg("assistant", "A2 first"));
        model.append(msg("assistant", "A2 second"));
        ChatView view;
        view.setModel(&model);
        view.resize(400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.scrollToTop();
        QCOMPARE(view.current_text(), QString("A2 second"));  // nothing selected: the last answer
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.visualRect(model.index(0)).center());
        QCOMPARE(view.current_text(), QString("A1"));  // a question: its answer
        view.selectionModel()->setCurrentIndex(model.index(2), QItemSelectionModel::ClearAndSelect);
        QCOMPARE(view.current_text(), QString("A2 second"));  // its newest version
        view.selectionModel()->setCurrentIndex(model.index(3), QItemSelectionModel::ClearAndSelect);
        QCOMPARE(view.current_text(), QString("A2 first"));  // an answer: that one
    }

    void versions_and_history() {
        ChatModel model;
        model.append(msg("user", "Q1"));
        model.append(msg("assistant", "A1 old"));
        model.append(msg("assistant", "A1 new"));
        model.append(msg("user", "Q2"));  // stopped before any text: no answer
        model.append(msg("user", "Q3"));
        ChatMessage failed = msg("assistant", "Out of memory");
        failed.failed = true;
        model.append(failed);
        model.append(msg("user", "Q4"));
        model.append(msg("assistant", "A4"));
        QCOMPARE(model.index(1).data(ChatModel::HeaderRole).toString(), QString("Answer · version 1 of 2"));
        QCOMPARE(model.index(2).data(ChatModel::HeaderRole).toString(), QString("Answer · version 2 of 2"));
        QCOMPARE(model.index(7).data(ChatModel::HeaderRole).toString(), QString("Answer"));
        const auto turns = conversation_turns(model.messages());
        QCOMPARE(turns.size(), std::size_t{2});
        QCOMPARE(turns[0].question, QString("Q1"));
        QCOMPARE(turns[0].answer, QString("A1 new"));
        QCOMPARE(turns[1].question, QString("Q4"));
        QCOMPARE(turns[1].answer, QString("A4"));
    }

    void citations_resolve_show_and_click() {
        // Positions 0..2 are template tokens; the document text starts at position 3.
        const QString text = "Filler words here. The batch number for the green office is 4417. More filler.";
        const auto map = four_char_tokens(text, 3);
        const int start = static_cast<int>(text.indexOf("The batch"));
        const std::vector<CitationInfo> info = {{3, 5, 0.1}, {3 + start / 4, 3 + (start + 47) / 4, 0.7}};
        const auto cits = resolve_citations(info, &map, text);
        QCOMPARE(cits.size(), std::size_t{2});
        QVERIFY2(cits[0].excerpt.contains("green office is 4417"), qPrintable(cits[0].excerpt));  // strongest first
        QVERIFY(cits[0].begin <= start && cits[0].end > start + 40);
        const auto round = parse_citations_json(citations_json(cits));
        QCOMPARE(round.size(), std::size_t{2});
        QCOMPARE(round[0].excerpt, cits[0].excerpt);
        QCOMPARE(round[0].begin, cits[0].begin);
        QVERIFY(parse_citations_json("{not json").empty());

        ChatModel model;
        model.append(msg("user", "What is the batch number for the green office?"));
        model.append(answer("4417.", "5 tokens", cits));
        const auto shown = shown_view(model);
        ChatView& view = *shown;
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(model.index(1).data(ChatModel::CitationsRole).toStringList()[0].contains("4417"));
        QSignalSpy clicked(&view, &ChatView::citationClicked);
        const QRect r = view.citation_rect(1, 0);
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toInt(), 1);
        QCOMPARE(clicked.at(0).at(1).toInt(), 0);
    }

    // Issue 41: a PDF's citation names its page ("p. 3" on the chip, "page" stored and read back),
    // clicking it still asks for its text range; a document without pages, or page starts that make
    // no sense for the text, give no page rather than a wrong one.
    void a_pdf_citation_names_its_page() {
        const QString pages[3] = {"First page of filler words.", "Second page, more of the same filler.",
                                  "Third page. The batch number for the green office is 4417. The end."};
        QString text;
        std::vector<int> starts;
        for (const QString& p : pages) {
            if (!text.isEmpty()) text += "\n\n";
            starts.push_back(static_cast<int>(text.size()));
            text += p;
        }
        const auto map = four_char_tokens(text, 2);
        const int fact = static_cast<int>(text.indexOf("The batch"));
        // A span that begins in the blank lines before page 2 (a token starting at the second
        // "\n") counts on page 2.
        const int gap = starts[1] - 1;
        QCOMPARE(gap % 4, 0);
        const std::vector<CitationInfo> info = {{2 + fact / 4, 2 + (fact + 40) / 4, 0.7}, {2 + gap / 4, 2 + gap / 4 + 2, 0.2}};
        const auto cits = resolve_citations(info, &map, text, starts);
        QCOMPARE(cits.size(), std::size_t{2});
        QVERIFY2(cits[0].excerpt.contains("4417"), qPrintable(cits[0].excerpt));
        QCOMPARE(cits[0].page, 3);
        QCOMPARE(cits[1].page, 2);
        const std::string json = citations_json(cits);
        QVERIFY2(json.find("\"page\":3") != std::string::npos, json.c_str());
        QCOMPARE(parse_citations_json(json)[0].page, 3);
        QCOMPARE(parse_citations_json(R"([{"first_token":1,"last_token":2,"page":-4}])")[0].page, 0);
        // An answer stored before citations had pages gets its page from its text range on load.
        auto old_row = parse_citations_json(R"([{"first_token":1,"last_token":2,"begin":90,"end":99}])");
        QCOMPARE(old_row[0].page, 0);
        name_missing_pages(old_row, starts);
        QCOMPARE(old_row[0].page, 3);

        // No pages, or pages that do not fit the text: no page, and no "page" stored.
        for (const std::vector<int>& bad : {std::vector<int>{}, std::vector<int>{0, 5000}, std::vector<int>{3, 10},
                                            std::vector<int>{0, 20, 20}}) {
            const auto none = resolve_citations(info, &map, text, bad);
            QCOMPARE(none[0].page, 0);
            QVERIFY(citations_json(none).find("\"page\"") == std::string::npos);
            QVERIFY(!citation_label(none[0]).contains("p. "));
        }

        ChatModel model;
        model.append(msg("user", "What is the batch number for the green office?"));
        model.append(answer("4417.", "5 tokens", cits));
        const QString label = model.index(1).data(ChatModel::CitationsRole).toStringList()[0];
        QVERIFY2(label.startsWith("p. 3 · "), qPrintable(label));
        const auto shown = shown_view(model);
        ChatView& view = *shown;
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy clicked(&view, &ChatView::citationClicked);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.citation_rect(1, 0).center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(1).toInt(), 0);
    }

    // Issue 23: the engine marks a citation weak when no passage stood out from the background (it
    // is then the strongest, shown alone; Citation::weak), and the chat showed it like any other.
    // Now its line says "weak:", is grey and italic (not link blue), its tooltip says what that
    // means, it is stored and exported with the flag.
    void a_remote_citation_is_placed_by_its_excerpt() {
        // A remote snapdoc-server's citation: its token positions are the server's, its excerpt is
        // one line; it is found in the text whitespace-insensitively, and not placed when absent.
        const QString text = "Intro.\n\nThe total   revenue\nwas 42 million.\n\nEnd.";
        const auto at = locate_excerpt(text, "The total revenue was 42 million.");
        QCOMPARE(text.mid(at.first, at.second - at.first), QString("The total   revenue\nwas 42 million."));
        QCOMPARE(locate_excerpt(text, "revenue was 4…").first, static_cast<int>(text.indexOf("revenue")));
        QCOMPARE(locate_excerpt(text, "not in the text").first, -1);
        CitationInfo remote{900, 950, 0.5};
        remote.text = "revenue was 42";
        remote.page = 3;
        const auto cits = resolve_citations({remote}, nullptr, text);
        QCOMPARE(cits.size(), std::size_t{1});
        QCOMPARE(cits[0].begin, static_cast<int>(text.indexOf("revenue")));
        QVERIFY(cits[0].excerpt.contains("revenue"));
        QCOMPARE(cits[0].page, 3);  // the server's page when the text has none
    }

    void a_weak_citation_says_so() {
        const QString text = "Filler words here and there, nothing that stands out at all.";
        const auto map = four_char_tokens(text, 0);
        const auto weak = resolve_citations({{2, 5, 0.04, true}}, &map, text);
        QCOMPARE(weak.size(), std::size_t{1});
        QVERIFY(weak[0].weak);
        const std::string json = citations_json(weak);
        QVERIFY2(json.find("\"weak\":true") != std::string::npos, json.c_str());
        QVERIFY(parse_citations_json(json)[0].weak);
        const auto strong = resolve_citations({{2, 5, 0.6}}, &map, text);
        QVERIFY(citations_json(strong).find("weak") ==
                std::string::npos);  // rows stored before read the same
        QVERIFY(!parse_citations_json(citations_json(strong))[0].weak);

        ChatModel model;
        model.append(msg("user", "Who wrote this?"));
        model.append(answer("Nobody.", "3 tokens", weak));
        model.append(msg("user", "And this?"));
        model.append(answer("Filler.", "2 tokens", strong));
        const auto shown = shown_view(model);
        ChatView& view = *shown;
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY2(model.index(1).data(ChatModel::CitationsRole).toStringList()[0].startsWith("weak: “"),
                 qPrintable(model.index(1).data(ChatModel::CitationsRole).toStringList()[0]));
        QVERIFY(!model.index(3).data(ChatModel::CitationsRole).toStringList()[0].contains("weak"));
        const QRect weak_rect = view.citation_rect(1, 0), strong_rect = view.citation_rect(3, 0);
        QVERIFY(!weak_rect.isEmpty() && !strong_rect.isEmpty());
        QVERIFY2(view.tooltip_at(weak_rect.center()).startsWith("Weak citation: no passage"),
                 qPrintable(view.tooltip_at(weak_rect.center())));
        QVERIFY(!view.tooltip_at(strong_rect.center()).contains("Weak"));
        QVERIFY(view.tooltip_at(strong_rect.center()).contains("Click to show this passage"));
        // The weak line has no link-blue ink; the strong one has.
        const QImage shot = view.viewport()->grab().toImage();
        auto bluish = [&](const QRect& r) {
            int n = 0;
            for (int y = r.top(); y <= r.bottom(); ++y)
                for (int x = r.left(); x <= r.right(); ++x) {
                    const QColor c = shot.pixelColor(x * shot.width() / view.viewport()->width(),
                                                     y * shot.height() / view.viewport()->height());
                    if (c.blue() - c.red() > 60) ++n;
                }
            return n;
        };
        QVERIFY(bluish(strong_rect) > 20);
        QCOMPARE(bluish(weak_rect), 0);
        // The Markdown export says it too.
        snapdoc::services::ConversationExport e;
        snapdoc::services::MessageRecord q, r;
        q.role = "user";
        q.text = "Who wrote this?";
        r.role = "assistant";
        r.text = "Nobody.";
        r.citations_json = json;
        e.messages = {q, r};
        const std::string md = snapdoc::services::conversation_markdown(e);
        QVERIFY2(md.find(", weak)") != std::string::npos, md.c_str());
    }
};

QTEST_MAIN(TestChatWidgets)
#include "test_chat_widgets.moc"
