// A web page or an EPUB chapter parsed as HTML5 by gumbo (Debian's libgumbo), the one HTML path
// of the CLI, the server and the app: the page is read as the HTML5 tree builder reads it (implied
// end tags, misnested tags, entities, <template> inert), then turned into StructuredText: h1-h6
// headings, paragraphs, nested lists, table rows, in reading order. Left out: scripts, styles,
// <template>, SVG/MathML and what a reader skips around the text (issue 23 item 8): navigation
// (<nav>, role navigation/search), the banner and footer (<header> outside <article>/<main>,
// <footer>, role banner/contentinfo) and permalink anchors (class "headerlink", Sphinx's "¶").
//
// Bounds: the bytes become UTF-8 first (html_charset.h), nesting is bounded before gumbo sees it
// (html_nesting_bound.h), and the parsed tree is checked once more (kMaxHtmlTreeDepth) before the
// recursive walk, so a hostile page gives a bounded text or one clear Error, never a crash.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "app/documents/structured_text.h"

namespace snapdoc::documents {

inline constexpr int kMaxHtmlTreeDepth = 1024;

class HtmlPage {
public:
    enum class Markup { Html, Xhtml };
    // `bytes` in any charset html_as_utf8 accepts; `what` names the page in messages. Xhtml: an
    // EPUB chapter, whose "<x/>" tags are empty elements (html_nesting_bound.h).
    HtmlPage(std::string_view bytes, const std::string& what, Markup markup = Markup::Html);
    ~HtmlPage();
    HtmlPage(const HtmlPage&) = delete;
    HtmlPage& operator=(const HtmlPage&) = delete;

    // The <title>, whitespace collapsed ("" if none).
    std::string title() const;
    bool has_heading() const;
    // The body's blocks, appended to `out`.
    void append_blocks(StructuredText& out) const;

private:
    struct Parsed;
    std::unique_ptr<Parsed> parsed_;
};

}  // namespace snapdoc::documents
