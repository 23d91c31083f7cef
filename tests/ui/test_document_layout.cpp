// Issue 23 item 25: a Markdown document shows rendered (headings large and bold, emphasis, code,
// links; the markup characters shrunk to nothing) and a hard-wrapped plain text shows as written
// (fixed pitch, one view line per text line), while the view keeps the document's characters one
// for one, so shading, citation highlights and position -> text lookups stay right. Driven through
// the real main window (open_document, by object name) and the panel with a synthetic token map.
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include "app/services/library_store.h"
#include "app/common/token_text_map.h"
#include "tests/ui/support/glyph_widths.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/document/document_layout.h"
#include "ui/document/document_panel.h"
#include "ui/document/document_view.h"
#include "ui/document/markdown_styler.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::drawn_fixed_pitch;
using snapdoc::test::glyph_widths;
using snapdoc::test::wait_until;

namespace {

const char* kMarkdown =
    "# Release notes\n"
    "\n"
    "Some **bold claim** and an *aside* with\n"
    "`code_span` and a [link text](https://example.org/x).\n"
    "\n"
    "- first item\n"
    "- second item\n"
    "\n"
    "```\n"
    "int main() { return 0; }\n"
    "```\n"
    "\n"
    "Closing words, see [the guide][guide].\n"
    "\n"
    "[guide]: https://example.org/guide\n";

// A licence-like text wrapped at 70 columns by its author.
QString hard_wrapped_text() {
    QString out;
    for (int p = 0; p < 4; ++p) {
        for (int l = 0; l < 6; ++l)
            out += QString("Line %1.%2 of a paragraph the author wrapped by hand at seventy cols.\n")
                       .arg(p)
                       .arg(l);
        out += "\n";
    }
    return out;
}

// One token per whitespace-separated word of `text`, no template tokens.
std::shared_ptr<TokenTextMap> word_map(const QString& text) {
    auto map = std::make_shared<TokenTextMap>();
    static const QRegularExpression word(QStringLiteral("\\S+"));
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        map->begin.push_back(static_cast<int32_t>(m.capturedStart()));
        map->end.push_back(static_cast<int32_t>(m.capturedEnd()));
    }
    map->first_text = 0;
    map->last_text = map->size() - 1;
    return map;
}

QTextCharFormat format_at(const DocumentView& view, int offset) {
    const QTextBlock block = view.document()->findBlock(offset);
    for (const QTextLayout::FormatRange& r : block.layout()->formats())
        if (offset - block.position() >= r.start && offset - block.position() < r.start + r.length)
            return r.format;
    return block.charFormat();
}

int line_count(const DocumentView& view) {
    int lines = 0;
    for (QTextBlock b = view.document()->begin(); b.isValid(); b = b.next()) lines += b.layout()->lineCount();
    return lines;
}

}  // namespace

class TestDocumentLayout : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

    QString write(const QString& name, const QString& text) {
        const QString path = dir_.path() + "/" + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
        f.write(text.toUtf8());
        return path;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void which_layout() {
        QVERIFY(looks_hard_wrapped(hard_wrapped_text()));
        QString prose;  // one long line per paragraph, as editors write
        for (int p = 0; p < 10; ++p)
            prose += snapdoc::test::sample_text(60).replace(QChar('\n'), QChar(' ')) + "\n\n";
        QVERIFY(!looks_hard_wrapped(prose));
        QVERIFY(!looks_hard_wrapped("short\nfew\nlines\n"));
        QCOMPARE(layout_for("md", prose), DocumentLayout::Markdown);
        QCOMPARE(layout_for("html", prose), DocumentLayout::Markdown);  // read as Markdown-shaped text (gumbo)
        QCOMPARE(layout_for("txt", hard_wrapped_text()), DocumentLayout::AsWritten);
        QCOMPARE(layout_for("txt", prose), DocumentLayout::Prose);
        QCOMPARE(layout_for("pdf", hard_wrapped_text()), DocumentLayout::Pdf);  // PDF lines are the page's
    }

    void markdown_soft_breaks() {
        QCOMPARE(markdown_view_text("one\ntwo\n\nthree"), QString("one two\n\nthree"));
        QCOMPARE(markdown_view_text("# Head\nbody\nmore"), QString("# Head\nbody more"));
        QCOMPARE(markdown_view_text("- a\n- b\n  still b"), QString("\u2022 a\n\u2022 b   still b"));
        // Issue 37: a nested item (any indentation) keeps its own line; "*", "-" and "+" bullets
        // show as bullets; a rule and ordered markers stay; link definitions are never joined.
        QCOMPARE(markdown_view_text("* a\n    + nested\n        - deeper\n* b"),
                 QString("\u2022 a\n    \u2022 nested\n        \u2022 deeper\n\u2022 b"));
        QCOMPARE(markdown_view_text("1. one\n   2. two\n\n* * *\n- - -"),
                 QString("1. one\n   2. two\n\n* * *\n- - -"));
        QCOMPARE(markdown_view_text("[a]: https://a.example\n[b]: https://b.example\ntext"),
                 QString("[a]: https://a.example\n[b]: https://b.example\ntext"));
        QCOMPARE(markdown_view_text("```\n* not a bullet\n```"), QString("```\n* not a bullet\n```"));
        QCOMPARE(markdown_view_text("Title\n=====\ntext"), QString("Title\n=====\ntext"));
        QCOMPARE(markdown_view_text("hard  \nbreak\\\nkept"), QString("hard  \nbreak\\\nkept"));
        QCOMPARE(markdown_view_text("```\ncode\nlines\n```\nafter\nfence"),
                 QString("```\ncode\nlines\n```\nafter fence"));
        QCOMPARE(markdown_view_text("| a | b |\n|---|---|\n| 1 | 2 |"),
                 QString("| a | b |\n|---|---|\n| 1 | 2 |"));
    }

    void pdf_lines_join_into_paragraphs() {
        // Issue 37: a PDF's text layer has one line per printed line; re-wrapped as they were they gave
        // ragged lines. Full-width lines join their paragraph; a heading, a paragraph's last line,
        // a list item and the blank line between pages keep their breaks; a hyphenated word reads whole.
        const QString page =
            "Introduction\n"
            "The committee met on the third day of the month to discuss the budget\n"
            "for the coming year and agreed that the heating of the north wing would\n"
            "be replaced before winter.\n"
            "Members noted that the cost of the replacement had risen since the exam-\n"
            "ination of the boilers last spring, and that the new pumps are quieter.\n"
            "The following were approved by a large majority of those who attended:\n"
            "- the boiler contract\n"
            "- the pump order\n"
            "\n"
            "Page two begins with a line that runs the full width of the printed page\n"
            "and ends here.";
        const QString shown = pdf_view_text(page);
        QCOMPARE(shown.size(), page.size());
        const QStringList lines = shown.split('\n');
        QCOMPARE(lines.size(), 7);
        QCOMPARE(lines[0], QString("Introduction"));
        QVERIFY2(lines[1].startsWith("The committee") && lines[1].endsWith("before winter."), qPrintable(lines[1]));
        QVERIFY2(lines[1].contains("budget for the coming year"), qPrintable(lines[1]));
        QVERIFY2(lines[2].contains(QString("exam") + QChar(0x00AD) + QChar(0x200B) + "ination"), qPrintable(lines[2]));
        // A paragraph whose last line runs the full width joins the next one: the text layer does not
        // tell them apart (a wide window shows one longer paragraph, not ragged lines).
        QVERIFY2(lines[2].endsWith("quieter. The following were approved by a large majority of those who attended:"),
                 qPrintable(lines[2]));
        QCOMPARE(lines[3], QString("- the boiler contract"));
        QCOMPARE(lines[4], QString("- the pump order"));
        QCOMPARE(lines[5], QString(""));
        QCOMPARE(lines[6], QString("Page two begins with a line that runs the full width of the printed page and ends here."));
        // Lines of a few words (a table, a form) are left alone.
        QCOMPARE(pdf_view_text("Name\nDate\nTotal 12\nSigned"), QString("Name\nDate\nTotal 12\nSigned"));

        DocumentView view;
        view.set_document(page, layout_for("pdf", page));
        QTRY_VERIFY(view.fully_loaded());
        QCOMPARE(view.toPlainText(), shown);
    }

    void markdown_renders_in_the_real_window_with_offsets_intact() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        dialogs = d.get();
        MainWindow w(*store_, std::move(d));
        w.resize(1280, 800);
        w.show();
        QSignalSpy shown(&w.documents(), &DocumentController::shown);
        w.open_document(write("notes.md", kMarkdown));
        QVERIFY(wait_until([&] { return shown.count() == 1; }));
        QVERIFY2(dialogs->errors.isEmpty(), qPrintable(dialogs->errors.join('\n')));
        auto* view = snapdoc::test::child<DocumentView>(w, "documentView");
        QVERIFY(wait_until([&] { return view->fully_loaded(); }));
        const QString text = QString::fromUtf8(kMarkdown);
        // The view holds the file's characters, so every offset the engine maps to is the same.
        QCOMPARE(view->toPlainText().size(), text.size());
        QTest::qWait(50);  // laid out

        // What a reader sees first (these use no API of the fix, so they also run on the code before
        // it, which showed the raw source): the title large and bold.
        const QTextCharFormat title = format_at(*view, text.indexOf("Release"));
        QVERIFY2(title.fontWeight() == int(QFont::Bold),
                 qPrintable(QString("the title's weight is %1, not bold: the Markdown is shown as source")
                                .arg(title.fontWeight())));
        QVERIFY(title.fontPointSize() > view->font().pointSizeF() * 1.3);

        QCOMPARE(view->layout(), DocumentLayout::Markdown);
        // Only the paragraph's soft break became a space, so the paragraph re-wraps as one.
        QCOMPARE(view->toPlainText(), markdown_view_text(text));
        QCOMPARE(view->document()->findBlock(text.indexOf("Some")).text(),
                 QString("Some **bold claim** and an *aside* with `code_span` and a [link "
                         "text](https://example.org/x)."));
        // Heading: "# " hidden.
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, 0)));
        // The title starts at (nearly) the left edge: the "# " takes no room.
        const QTextBlock first = view->document()->firstBlock();
        QVERIFY2(first.layout()->lineAt(0).cursorToX(2) < 4,
                 qPrintable(QString::number(first.layout()->lineAt(0).cursorToX(2))));
        // Emphasis, code and links styled; their markup hidden.
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("**bold"))));
        QCOMPARE(format_at(*view, text.indexOf("bold claim")).fontWeight(), int(QFont::Bold));
        QVERIFY(format_at(*view, text.indexOf("aside")).fontItalic());
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("`code_span"))));
        // Fixed pitch as drawn (glyph widths), not QFontInfo::fixedPitch(): that is fontconfig's flag for
        // the face "monospace" resolves to, false for Noto Sans Mono though its letters are one width.
        const QFont span = format_at(*view, text.indexOf("code_span")).font();
        QVERIFY2(drawn_fixed_pitch(span), qPrintable(glyph_widths(span)));
        QVERIFY(format_at(*view, text.indexOf("link text")).fontUnderline());
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("[link"))));
        // Fence lines hidden, the code in between fixed pitch.
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("```"))));
        const QFont block = format_at(*view, text.indexOf("int main")).font();
        QVERIFY2(drawn_fixed_pitch(block), qPrintable(glyph_widths(block)));
        QVERIFY(!MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("Closing"))));
        // Bullets drawn as bullets, bold (issue 37: the "*" or "-" showed as typed).
        const int bullet = static_cast<int>(text.indexOf("- first"));
        QCOMPARE(view->toPlainText().at(bullet), QChar(0x2022));
        QCOMPARE(format_at(*view, bullet).fontWeight(), int(QFont::Bold));
        // A reference-style link reads as a link, its brackets hidden; its definition line is small.
        QVERIFY(format_at(*view, text.indexOf("the guide")).fontUnderline());
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("[the guide"))));
        QVERIFY(MarkdownStyler::is_hidden_markup(format_at(*view, text.indexOf("][guide]"))));
        QVERIFY(!format_at(*view, text.indexOf("guide]:")).fontUnderline());
        QVERIFY(format_at(*view, text.indexOf("https://example.org/guide")).fontPointSize() <
                view->font().pointSizeF());

        // Shading, citation highlight and position -> text still read the file's offsets.
        const auto map = word_map(text);
        view->set_token_map(map);
        auto counts = std::make_shared<std::vector<uint16_t>>(map->size(), 0);
        const int claim = map->position_at(text.indexOf("claim"));
        (*counts)[claim] = 4;
        view->set_head_counts(counts, 4);
        QCOMPARE(view->shade_level_at(text.indexOf("claim")), DocumentView::kLevels);
        QCOMPARE(view->shade_level_at(text.indexOf("aside")), 0);
        QCOMPARE(view->text_of(claim, claim + 1), QString("claim**"));
        auto* panel = w.document_panel();
        const int item = static_cast<int>(text.indexOf("second item"));
        QVERIFY(panel->scrollToAndHighlight(item, item + 11));
        QCOMPARE(view->highlighted_range(), std::make_pair(item, item + 11));
        QCOMPARE(view->textCursor().selectedText().isEmpty(), true);
        QVERIFY(!panel->location_of(claim).isEmpty());
        QCOMPARE(panel->location_of(claim), QString("line 3"));
    }

    void hard_wrapped_text_is_shown_as_written() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        dialogs = d.get();
        MainWindow w(*store_, std::move(d));
        w.resize(1024, 700);
        w.show();
        QSignalSpy shown(&w.documents(), &DocumentController::shown);
        const QString text = hard_wrapped_text();
        w.open_document(write("licence.txt", text));
        QVERIFY(wait_until([&] { return shown.count() == 1; }));
        auto* view = snapdoc::test::child<DocumentView>(w, "documentView");
        QVERIFY(wait_until([&] { return view->fully_loaded(); }));
        QCOMPARE(view->toPlainText(), text);
        // Narrower than a line: still one view line per text line (scrolls sideways, no one-word
        // lines), in a fixed-pitch font. (No API of the fix: these also run on the code before it.)
        view->setFixedWidth(200);
        QTest::qWait(50);
        QVERIFY2(line_count(*view) == view->document()->blockCount(),
                 qPrintable(QString("%1 view lines for %2 text lines: re-wrapped")
                                .arg(line_count(*view))
                                .arg(view->document()->blockCount())));
        QVERIFY(view->horizontalScrollBar()->maximum() > 0);
        QVERIFY2(drawn_fixed_pitch(view->font()), qPrintable(glyph_widths(view->font())));
        QCOMPARE(view->layout(), DocumentLayout::AsWritten);

        // A Markdown file opened next goes back to the proportional, re-wrapped layout.
        w.open_document(write("after.md", kMarkdown));
        QVERIFY(wait_until([&] { return shown.count() == 2; }));
        QCOMPARE(view->layout(), DocumentLayout::Markdown);
        QVERIFY2(!drawn_fixed_pitch(view->font()), qPrintable(glyph_widths(view->font())));
        QCOMPARE(view->lineWrapMode(), QPlainTextEdit::WidgetWidth);
    }
};

QTEST_MAIN(TestDocumentLayout)
#include "test_document_layout.moc"
