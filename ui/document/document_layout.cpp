#include "ui/document/document_layout.h"

#include <QRegularExpression>
#include <QStringView>
#include <algorithm>
#include <vector>

namespace snapdoc::ui {

bool looks_hard_wrapped(const QString& text) {
    constexpr int kMaxLines = 2000, kShortLine = 100;
    int lines = 0, non_empty = 0, continued = 0, long_lines = 0;
    bool previous_non_empty = false;
    qsizetype start = 0;
    while (start <= text.size() && lines < kMaxLines) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0) end = text.size();
        const QStringView line = QStringView(text).mid(start, end - start).trimmed();
        ++lines;
        if (!line.isEmpty()) {
            ++non_empty;
            if (previous_non_empty) ++continued;
            if (line.size() > kShortLine) ++long_lines;
        }
        previous_non_empty = !line.isEmpty();
        start = end + 1;
    }
    // Too little text to tell: re-wrapping a few lines costs nothing.
    if (non_empty < 8) return false;
    return continued * 2 >= non_empty && long_lines * 20 <= non_empty;
}

namespace {

// A list item at any indentation: a nested item ("    - b" under "- a") starts a line of its own
// (with at most 3 spaces allowed it ran into its parent: issue 37).
const QRegularExpression& list_item() {
    static const QRegularExpression item(QStringLiteral("^\\s*([-*+]|\\d{1,9}[.)])(?=\\s)"));
    return item;
}

// "[label]: address", a reference-style link's definition: one per line, never joined.
bool is_link_definition(QStringView line) {
    static const QRegularExpression definition(QStringLiteral("^ {0,3}\\[[^\\]]+\\]:\\s*\\S"));
    return definition.match(line).hasMatch();
}

bool is_rule(QStringView line) {
    static const QRegularExpression rule(QStringLiteral("^ {0,3}(?:[-*_]\\s*){3,}$"));
    return rule.match(line).hasMatch();
}

bool starts_markdown_block(QStringView line) {
    // Heading, quotation, fence, table row, rule or setext underline, HTML block.
    static const QRegularExpression block(QStringLiteral(
        "^(?: "
        "{0,3}(?:#{1,6}(?:\\s|$)|>|```|~~~|\\||<|(?:[-*_]\\s*){3,}$|=+\\s*$))"));
    return block.match(line).hasMatch() || list_item().match(line).hasMatch() || is_link_definition(line);
}

// The text's lines and the offset of the '\n' after each (-1 for the last).
std::pair<std::vector<QStringView>, std::vector<qsizetype>> split_lines(const QString& text) {
    std::vector<QStringView> lines;
    std::vector<qsizetype> breaks;
    for (qsizetype start = 0; start <= text.size();) {
        const qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        lines.push_back(QStringView(text).mid(start, (end < 0 ? text.size() : end) - start));
        breaks.push_back(end);
        if (end < 0) break;
        start = end + 1;
    }
    return {std::move(lines), std::move(breaks)};
}

bool is_fence_line(QStringView line) {
    static const QRegularExpression fence(QStringLiteral("^ {0,3}(```|~~~)"));
    return fence.match(line).hasMatch();
}

}  // namespace

QString markdown_view_text(const QString& source) {
    QString out = source;
    const auto [lines, breaks] = split_lines(source);
    bool in_fence = false;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const QStringView line = lines[i], next = lines[i + 1];
        if (is_fence_line(line)) in_fence = !in_fence;
        if (in_fence || is_fence_line(line)) continue;
        if (line.trimmed().isEmpty() || next.trimmed().isEmpty()) continue;
        if (line.endsWith(QLatin1String("  ")) || line.endsWith(QLatin1Char('\\'))) continue;
        // A line that is itself a heading, rule or table row ends there; a list item or quotation
        // may continue on the next line.
        static const QRegularExpression ends_block(
            QStringLiteral("^ {0,3}(?:#{1,6}(?:\\s|$)|\\||(?:[-*_]\\s*){3,}$|=+\\s*$|<)"));
        if (ends_block.match(line).hasMatch() || is_link_definition(line) || starts_markdown_block(next))
            continue;
        out[breaks[i]] = QLatin1Char(' ');
    }
    // A bullet list's marker ("-", "*", "+") shows as a bullet, as a renderer draws it (the "*" was
    // shown as typed). One UTF-16 character for one, so every offset stays the file's.
    in_fence = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (is_fence_line(lines[i])) in_fence = !in_fence;
        if (in_fence) continue;
        const auto m = list_item().match(lines[i]);
        if (!m.hasMatch() || m.capturedLength(1) != 1 || !QStringLiteral("-*+").contains(m.captured(1))) continue;
        if (is_rule(lines[i])) continue;  // "* * *" is a rule, not a list
        const qsizetype line_start = lines[i].data() - source.constData();
        out[line_start + m.capturedStart(1)] = QChar(0x2022);
    }
    return out;
}

namespace {

// How long a full printed line is, in characters: the 80th percentile of the non-empty lines'
// lengths (most lines of a page of prose run the full width; headings and last lines are shorter).
qsizetype full_line_length(const std::vector<QStringView>& lines) {
    std::vector<qsizetype> lengths;
    for (const QStringView line : lines)
        if (!line.trimmed().isEmpty()) lengths.push_back(line.trimmed().size());
    if (lengths.empty()) return 0;
    const auto at = lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() * 8 / 10);
    std::nth_element(lengths.begin(), at, lengths.end());
    return *at;
}

}  // namespace

QString pdf_view_text(const QString& text) {
    const auto [lines, breaks] = split_lines(text);
    QString out = text;
    // Lines of a few words are not prose (a table, a form): their breaks stay.
    const qsizetype full = full_line_length(lines);
    if (full < 30) return out;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const QStringView line = lines[i].trimmed(), next = lines[i + 1].trimmed();
        if (line.isEmpty() || next.isEmpty()) continue;
        if (line.size() * 10 < full * 7) continue;  // ends short: a heading or a paragraph's end
        if (list_item().match(next).hasMatch() || next.startsWith(QChar(0x2022))) continue;
        const qsizetype end_of_line = lines[i].data() - text.constData() + lines[i].size();
        const bool hyphenated = line.size() >= 2 && line.endsWith(QLatin1Char('-')) &&
                                line[line.size() - 2].isLower() && next[0].isLower() &&
                                lines[i].endsWith(QLatin1Char('-'));
        if (hyphenated) {
            out[end_of_line - 1] = QChar(0x00AD);  // soft hyphen: drawn only where a line breaks
            out[breaks[i]] = QChar(0x200B);         // zero-width space: the word reads whole
        } else {
            out[breaks[i]] = QLatin1Char(' ');
        }
    }
    return out;
}

DocumentLayout layout_for(const QString& format, const QString& text) {
    // HTML, DOCX, ODT and EPUB are extracted as Markdown-shaped text (app/documents/extracted_document.h).
    if (format == QLatin1String("md") || format == QLatin1String("docx") || format == QLatin1String("odt") ||
        format == QLatin1String("epub") || format == QLatin1String("html"))
        return DocumentLayout::Markdown;
    if (format == QLatin1String("pdf")) return DocumentLayout::Pdf;
    if (format == QLatin1String("txt") && looks_hard_wrapped(text)) return DocumentLayout::AsWritten;
    return DocumentLayout::Prose;
}

}  // namespace snapdoc::ui
