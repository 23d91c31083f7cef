// How the document view lays a document out (issue 23 item 25). The view always holds the
// document's own characters, one for one, because the engine's positions map to UTF-16 offsets of
// that text (TokenTextMap) and the shading, citation highlights and page/line lookups read those
// offsets. So "rendering" is styling in place: Markdown gets its headings, emphasis, code and links
// set as such with the markup characters shrunk to nothing (MarkdownStyler); a hard-wrapped plain
// text (a licence, an RFC, a mail) is shown as written, in a fixed-pitch font with no re-wrapping,
// instead of re-flowed in a proportional font that leaves one-word lines.
#pragma once

#include <QString>

namespace snapdoc::ui {

enum class DocumentLayout {
    Prose,      // re-wrapped to the view's width (HTML, unwrapped text)
    Pdf,        // re-wrapped, the page's line breaks inside a paragraph joined
    Markdown,   // re-wrapped, Markdown styled in place
    AsWritten,  // fixed pitch, one view line per text line
};

// The layout for a document of `format` ("txt", "md", "html", "pdf"; "" unknown) and text.
DocumentLayout layout_for(const QString& format, const QString& text);

// The characters the view shows for Markdown `source`: the same length, every character the same
// except the soft line breaks inside a paragraph, which become spaces, so a paragraph re-wraps as
// one (a renderer joins them too). A break stays where Markdown keeps one: before a blank line, a
// heading, a list item, a quotation, a fence, a table row, a rule or a setext underline, after two
// trailing spaces or a backslash, and everywhere inside a fenced code block.
QString markdown_view_text(const QString& source);

// The characters the view shows for a PDF's text: the same length, every character the same except
// the line breaks inside a paragraph. The text layer has one line per printed line, and those lines
// re-wrapped at the view's width gave ragged lines (issue 37). A break is joined when its line runs
// (nearly) the full width the document's lines usually have and the next line is text, not a list
// item: it becomes a space, or, after a word broken with a hyphen ("exam-" / "ple"), the hyphen
// becomes a soft hyphen and the break a zero-width space, so "example" reads whole. A short line
// (a heading, a paragraph's last line) and a blank line (between pages) keep their breaks.
QString pdf_view_text(const QString& text);

// True when the text's line breaks are the author's wrapping of paragraphs at a fixed width: most
// non-empty lines continue a paragraph (the next line is not empty) and nearly all are short
// (at most 100 characters). Looks at the first 2,000 lines.
bool looks_hard_wrapped(const QString& text);

}  // namespace snapdoc::ui
