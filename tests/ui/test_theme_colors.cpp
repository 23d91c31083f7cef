// Issue 37 (a dark theme that follows the system), first part: colours picked for a light theme
// follow a dark palette. A question card was a pale blue under the dark theme's light text; later
// the document view's citation marker, its shading and the answers' code blocks were still the
// light theme's.
#include <QImage>
#include <QtTest>

#include <QApplication>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

#include "app/common/token_text_map.h"
#include "ui/chat/chat_delegate.h"
#include "ui/chat/chat_view.h"
#include "ui/document/document_view.h"
#include "ui/document/markdown_styler.h"
#include "ui/hub/catalogue_table_model.h"
#include "ui/models/chat_model.h"
#include "ui/widgets/theme_colors.h"

using namespace snapdoc::ui;

namespace {

QPalette dark_palette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(32, 32, 36));
    p.setColor(QPalette::Base, QColor(24, 24, 28));
    p.setColor(QPalette::Text, QColor(230, 230, 230));
    p.setColor(QPalette::WindowText, QColor(230, 230, 230));
    return p;
}

QPalette light_palette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(239, 239, 239));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::Text, Qt::black);
    return p;
}

}  // namespace

class TestThemeColors : public QObject {
    Q_OBJECT

private slots:
    void dark_is_told_from_the_window_colour() {
        QVERIFY(is_dark(dark_palette()));
        QVERIFY(!is_dark(light_palette()));
    }

    void light_colours_stay_and_are_mirrored_on_dark() {
        const QColor card(236, 241, 250), error(0xb0, 0x20, 0x20);
        QCOMPARE(for_palette(card, light_palette()), card);
        const QColor dark_card = for_palette(card, dark_palette());
        QVERIFY2(dark_card.lightness() < 40, qPrintable(dark_card.name()));
        QCOMPARE(dark_card.hslHue(), card.hslHue());
        // An error's red stays red and is light enough to read on the dark window.
        const QColor dark_error = for_palette(error, dark_palette());
        QVERIFY2(dark_error.lightness() > 128 && dark_error.red() > dark_error.green(), qPrintable(dark_error.name()));
    }

    // The question card itself, painted under a dark palette: a dark fill, not the light one.
    void a_question_card_is_dark_under_a_dark_palette() {
        ChatModel model;
        ChatMessage q;
        q.role = "user";
        q.text = "Q";
        model.append(q);
        ChatView view;
        view.setPalette(dark_palette());
        view.setModel(&model);
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        const QRect card = view.visualRect(model.index(0));
        QVERIFY(card.height() > 20);
        const QImage shot = view.viewport()->grab().toImage();
        // Right of the header and the one-letter question: the card's fill.
        const QColor fill = shot.pixelColor(card.right() - 20, card.center().y());
        QVERIFY2(fill.lightness() < 80, qPrintable(fill.name()));
    }

    // The catalogue's fit badges and the document's Markdown code background follow the
    // application palette (they were pale under a dark theme's light text).
    void badges_and_markdown_follow_a_dark_application_palette() {
        const QPalette before = QApplication::palette();
        QApplication::setPalette(dark_palette());
        for (auto badge : {snapdoc::hub::FitBadge::Fits, snapdoc::hub::FitBadge::Tight,
                           snapdoc::hub::FitBadge::DoesNotFit})
            QVERIFY2(badge_color(badge).lightness() < 80, qPrintable(badge_color(badge).name()));
        QTextDocument doc;
        doc.setPlainText("```\nint x;\n```");
        MarkdownStyler styler;
        styler.setDocument(&doc);
        styler.rehighlight();  // setDocument highlights from the event loop
        const QTextBlock code = doc.findBlockByNumber(1);
        const auto formats = code.layout()->formats();
        QVERIFY(!formats.isEmpty());
        const QColor background = formats.front().format.background().color();
        QApplication::setPalette(before);
        QVERIFY2(background.lightness() < 80, qPrintable(background.name()));
    }

    // A citation's marker in the document view: the light yellow under dark text on a light theme,
    // a dark amber under the light text on a dark one, and a theme switch changes the marker that
    // is already drawn (it is a format in the document, not painted from the palette).
    void the_citation_marker_follows_the_theme() {
        DocumentView view;
        view.setPalette(light_palette());
        view.set_document(QStringLiteral("The batch number is 4821. Another sentence follows."),
                          DocumentLayout::Prose);
        QVERIFY(view.highlight_range(4, 16));
        const QColor on_light = view.highlight_color();
        QVERIFY2(on_light.isValid() && on_light.lightness() > 160, qPrintable(on_light.name()));
        view.setPalette(dark_palette());
        const QColor on_dark = view.highlight_color();
        QVERIFY2(on_dark.isValid() && on_dark.lightness() < 110, qPrintable(on_dark.name()));
        QCOMPARE(on_dark.hslHue(), on_light.hslHue());  // still the same yellow-amber marker
        // The text on it stays the palette's: light on the dark marker.
        QVERIFY(view.palette().color(QPalette::Text).lightness() - on_dark.lightness() > 100);
    }

    // The kept-position shading: a mid-lightness tint on the light base, a tint that stays visible
    // (not the base colour) and is darker than the light text on the dark one.
    void document_shading_follows_the_theme() {
        DocumentView view;
        view.setPalette(dark_palette());
        for (int level = 1; level <= DocumentView::kLevels; ++level) {
            const QColor c = view.shade_color_for(level);
            QVERIFY2(c.lightness() < dark_palette().color(QPalette::Text).lightness(), qPrintable(c.name()));
            QVERIFY(c.alpha() > 0);
        }
        view.setPalette(light_palette());
        const QColor light = view.shade_color_for(1);
        view.setPalette(dark_palette());
        const QColor dark = view.shade_color_for(1);
        QCOMPARE(dark.alpha(), light.alpha());
        QVERIFY(dark.lightness() > light.lightness());  // mirrored: the blue lifted off the dark base
    }

    // An answer's code block and its citations on a dark theme: a dark code background and a
    // citation colour light enough to read on the dark card.
    void answer_code_and_citations_follow_the_theme() {
        ChatModel model;
        ChatMessage a;
        a.role = "assistant";
        a.text = "Run:\n\n```\nmake\n```\n";
        model.append(a);
        const auto on_dark = ChatDelegate::body_document(model.index(0), QFont(), 300, dark_palette());
        const auto on_light = ChatDelegate::body_document(model.index(0), QFont(), 300, light_palette());
        auto code_background = [](const QTextDocument& doc) {
            for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
                if (b.text() == "make") return b.blockFormat().background().color();
            return QColor();
        };
        QVERIFY2(code_background(*on_light).lightness() > 200, qPrintable(code_background(*on_light).name()));
        QVERIFY2(code_background(*on_dark).lightness() < 60, qPrintable(code_background(*on_dark).name()));
        for (bool weak : {false, true}) {
            const QColor c = ChatDelegate::citation_color(weak, dark_palette());
            QVERIFY2(c.lightness() > 120, qPrintable(c.name()));
        }
    }
};

QTEST_MAIN(TestThemeColors)
#include "test_theme_colors.moc"
