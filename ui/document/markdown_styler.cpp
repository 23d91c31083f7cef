#include "ui/document/markdown_styler.h"

#include <QGuiApplication>
#include <QRegularExpression>
#include <QTextDocument>
#include <array>

#include "ui/document/fixed_pitch_font.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

namespace {

enum BlockState { kNormal = 0, kInFence = 1 };

// A property no other format sets, so tests and merges can tell hidden markup apart.
constexpr int kHiddenProperty = QTextFormat::UserProperty + 1;

bool is_fence(const QString& text) {
    static const QRegularExpression fence(QStringLiteral("^ {0,3}(```|~~~)"));
    return fence.match(text).hasMatch();
}

bool is_setext_underline(const QString& text) {
    static const QRegularExpression underline(QStringLiteral("^ {0,3}(=+|-+)\\s*$"));
    return underline.match(text).hasMatch();
}

// Light-theme colours, mirrored under a dark application palette (theme_colors.h).
QColor themed(const QColor& light_theme_color) {
    return for_palette(light_theme_color, QGuiApplication::palette());
}

QColor markup_grey() {
    return themed(QColor(120, 120, 120));
}

}  // namespace

MarkdownStyler::MarkdownStyler(QObject* parent) : QSyntaxHighlighter(parent) {}

bool MarkdownStyler::is_hidden_markup(const QTextCharFormat& format) {
    return format.boolProperty(kHiddenProperty);
}

qreal MarkdownStyler::base_point_size() const {
    const qreal size = document() ? document()->defaultFont().pointSizeF() : -1;
    return size > 0 ? size : 10;
}

void MarkdownStyler::merge(int start, int count, const QTextCharFormat& add) {
    for (int i = start; i < start + count; ++i) {
        QTextCharFormat f = format(i);
        if (is_hidden_markup(f)) continue;  // markup stays hidden whatever surrounds it
        f.merge(add);
        setFormat(i, 1, f);
    }
}

void MarkdownStyler::hide(int start, int count) {
    QTextCharFormat f;
    f.setForeground(Qt::transparent);
    f.setFontPointSize(1);
    f.setFontLetterSpacingType(QFont::AbsoluteSpacing);
    f.setFontLetterSpacing(-1);
    f.setProperty(kHiddenProperty, true);
    setFormat(start, count, f);
}

void MarkdownStyler::highlightBlock(const QString& text) {
    const bool in_fence = previousBlockState() == kInFence;
    if (is_fence(text)) {
        hide(0, static_cast<int>(text.size()));
        setCurrentBlockState(in_fence ? kNormal : kInFence);
        return;
    }
    setCurrentBlockState(in_fence ? kInFence : kNormal);
    if (in_fence) {
        QTextCharFormat code;
        code.setFontFamilies(fixed_pitch_font().families());
        code.setBackground(themed(QColor(242, 242, 242)));
        setFormat(0, static_cast<int>(text.size()), code);
        return;
    }

    static const QRegularExpression atx(QStringLiteral("^ {0,3}(#{1,6})(\\s+|$)(.*?)(\\s+#+)?\\s*$"));
    static const QRegularExpression quote(QStringLiteral("^ {0,3}(>\\s?)+"));
    // "•" is how markdown_view_text shows a "-", "*" or "+" bullet.
    static const QRegularExpression list(QStringLiteral("^\\s*([-*+\\x{2022}]|\\d{1,9}[.)])\\s+"));
    static const QRegularExpression definition(QStringLiteral("^ {0,3}(\\[)([^\\]]+)(\\]:)"));
    static const QRegularExpression table(QStringLiteral("^\\s*\\|.*\\|\\s*$"));
    static const std::array<qreal, 6> heading_scale{1.7, 1.45, 1.25, 1.1, 1.0, 1.0};

    auto heading = [&](int level, int start, int count) {
        QTextCharFormat h;
        h.setFontWeight(QFont::Bold);
        h.setFontPointSize(base_point_size() * heading_scale[std::clamp(level, 1, 6) - 1]);
        merge(start, count, h);
    };

    if (const auto m = atx.match(text); m.hasMatch()) {
        hide(0, static_cast<int>(m.capturedStart(3)));
        if (m.capturedLength(4) > 0)
            hide(static_cast<int>(m.capturedStart(4)), static_cast<int>(m.capturedLength(4)));
        style_inline(text, static_cast<int>(m.capturedStart(3)));
        heading(static_cast<int>(m.capturedLength(1)), static_cast<int>(m.capturedStart(3)),
                static_cast<int>(m.capturedLength(3)));
        return;
    }
    if (is_setext_underline(text) && currentBlock().previous().isValid() &&
        !currentBlock().previous().text().trimmed().isEmpty() &&
        !is_fence(currentBlock().previous().text())) {
        hide(0, static_cast<int>(text.size()));
        return;
    }
    if (!text.trimmed().isEmpty() && currentBlock().next().isValid() &&
        is_setext_underline(currentBlock().next().text()) && !list.match(text).hasMatch()) {
        style_inline(text, 0);
        heading(currentBlock().next().text().trimmed().startsWith('=') ? 1 : 2, 0,
                static_cast<int>(text.size()));
        return;
    }
    if (const auto m = definition.match(text); m.hasMatch()) {
        // A reference-style link's "[label]: address" line: small and grey, as the address of an
        // inline link is, with the label's brackets hidden.
        QTextCharFormat address;
        address.setForeground(markup_grey());
        address.setFontPointSize(base_point_size() * 0.75);
        setFormat(0, static_cast<int>(text.size()), address);
        hide(static_cast<int>(m.capturedStart(1)), 1);
        hide(static_cast<int>(m.capturedStart(3)), 1);
        return;
    }
    if (table.match(text).hasMatch()) {
        QTextCharFormat mono;
        mono.setFontFamilies(fixed_pitch_font().families());
        setFormat(0, static_cast<int>(text.size()), mono);
        style_inline(text, 0);
        return;
    }
    int body = 0;
    if (const auto m = quote.match(text); m.hasMatch()) {
        body = static_cast<int>(m.capturedLength(0));
        QTextCharFormat marker;
        marker.setForeground(themed(QColor(170, 170, 170)));
        marker.setFontWeight(QFont::Bold);
        setFormat(0, body, marker);  // kept visible: the bar that marks a quotation
        QTextCharFormat q;
        q.setFontItalic(true);
        q.setForeground(themed(QColor(90, 90, 90)));
        setFormat(body, static_cast<int>(text.size()) - body, q);
    }
    if (const auto m = list.match(text, body); m.hasMatch() && m.capturedStart(0) == body) {
        QTextCharFormat bullet;
        bullet.setFontWeight(QFont::Bold);
        bullet.setForeground(themed(QColor(24, 92, 200)));
        merge(static_cast<int>(m.capturedStart(1)), static_cast<int>(m.capturedLength(1)), bullet);
        body = static_cast<int>(m.capturedEnd(0));
    }
    style_inline(text, body);
}

void MarkdownStyler::style_inline(const QString& text, int from) {
    // Code spans first: nothing inside them is markup.
    static const QRegularExpression code(QStringLiteral("(`+)(.+?)\\1"));
    static const QRegularExpression strong(QStringLiteral("(\\*\\*|__)(?=\\S)(.+?)(?<=\\S)\\1"));
    static const QRegularExpression emphasis(
        QStringLiteral("(?<![\\w*])(\\*|_)(?=[^\\s*_])(.+?)(?<=[^\\s*_])\\1(?![\\w*])"));
    static const QRegularExpression link(
        QStringLiteral("(!?\\[)([^\\]]+)(\\])(\\([^)\\s]*(?:\\s+\"[^\"]*\")?\\))"));
    static const QRegularExpression reference(QStringLiteral("(\\[)([^\\]]+)(\\]\\[)([^\\]]*)(\\])"));
    static const QRegularExpression autolink(QStringLiteral("(<)((?:https?|mailto|ftp):[^>\\s]+)(>)"));

    std::vector<std::pair<int, int>> code_spans;
    for (auto it = code.globalMatch(text, from); it.hasNext();) {
        const auto m = it.next();
        QTextCharFormat c;
        c.setFontFamilies(fixed_pitch_font().families());
        c.setBackground(themed(QColor(238, 238, 238)));
        merge(static_cast<int>(m.capturedStart(2)), static_cast<int>(m.capturedLength(2)), c);
        hide(static_cast<int>(m.capturedStart(1)), static_cast<int>(m.capturedLength(1)));
        hide(static_cast<int>(m.capturedEnd(2)), static_cast<int>(m.capturedLength(1)));
        code_spans.emplace_back(static_cast<int>(m.capturedStart(0)), static_cast<int>(m.capturedEnd(0)));
    }
    auto in_code = [&](qsizetype at) {
        for (const auto& [a, b] : code_spans)
            if (at >= a && at < b) return true;
        return false;
    };
    // Runs of spaces read as one, as a renderer collapses them (a joined list item's indentation).
    static const QRegularExpression spaces(QStringLiteral("(?<=\\S) {2,}(?=\\S)"));
    const bool table_row = text.trimmed().startsWith(QLatin1Char('|'));  // its spaces align columns
    for (auto it = spaces.globalMatch(text, from); !table_row && it.hasNext();) {
        const auto m = it.next();
        if (!in_code(m.capturedStart(0)))
            hide(static_cast<int>(m.capturedStart(0)) + 1, static_cast<int>(m.capturedLength(0)) - 1);
    }
    auto pairs = [&](const QRegularExpression& pattern, const QTextCharFormat& style) {
        for (auto it = pattern.globalMatch(text, from); it.hasNext();) {
            const auto m = it.next();
            if (in_code(m.capturedStart(0))) continue;
            merge(static_cast<int>(m.capturedStart(2)), static_cast<int>(m.capturedLength(2)), style);
            hide(static_cast<int>(m.capturedStart(1)), static_cast<int>(m.capturedLength(1)));
            hide(static_cast<int>(m.capturedEnd(2)), static_cast<int>(m.capturedLength(1)));
        }
    };
    QTextCharFormat bold;
    bold.setFontWeight(QFont::Bold);
    pairs(strong, bold);
    QTextCharFormat italic;
    italic.setFontItalic(true);
    pairs(emphasis, italic);

    QTextCharFormat link_text;
    link_text.setForeground(themed(QColor(24, 92, 200)));
    link_text.setFontUnderline(true);
    QTextCharFormat address;
    address.setForeground(markup_grey());
    address.setFontPointSize(base_point_size() * 0.75);
    for (auto it = link.globalMatch(text, from); it.hasNext();) {
        const auto m = it.next();
        if (in_code(m.capturedStart(0))) continue;
        hide(static_cast<int>(m.capturedStart(1)), static_cast<int>(m.capturedLength(1)));
        merge(static_cast<int>(m.capturedStart(2)), static_cast<int>(m.capturedLength(2)), link_text);
        hide(static_cast<int>(m.capturedStart(3)), static_cast<int>(m.capturedLength(3)));
        // The address stays readable, small: the model reads it, and a citation may point into it.
        setFormat(static_cast<int>(m.capturedStart(4)), static_cast<int>(m.capturedLength(4)), address);
    }
    // Reference-style links, "[text][label]" and "[text][]": the text as a link, the label small.
    for (auto it = reference.globalMatch(text, from); it.hasNext();) {
        const auto m = it.next();
        if (in_code(m.capturedStart(0))) continue;
        hide(static_cast<int>(m.capturedStart(1)), 1);
        merge(static_cast<int>(m.capturedStart(2)), static_cast<int>(m.capturedLength(2)), link_text);
        hide(static_cast<int>(m.capturedStart(3)), static_cast<int>(m.capturedLength(3)));
        setFormat(static_cast<int>(m.capturedStart(4)), static_cast<int>(m.capturedLength(4)), address);
        hide(static_cast<int>(m.capturedStart(5)), 1);
    }
    for (auto it = autolink.globalMatch(text, from); it.hasNext();) {
        const auto m = it.next();
        if (in_code(m.capturedStart(0))) continue;
        hide(static_cast<int>(m.capturedStart(1)), 1);
        merge(static_cast<int>(m.capturedStart(2)), static_cast<int>(m.capturedLength(2)), link_text);
        hide(static_cast<int>(m.capturedStart(3)), 1);
    }
}

}  // namespace snapdoc::ui
