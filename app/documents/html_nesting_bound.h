// Bounds how deeply a page's elements nest before gumbo parses it. gumbo, like every HTML5 tree
// builder, checks "is there an open X in scope" by walking the open elements for many start and
// end tags, so its time grows with depth × tags: 100,000 nested <div>s took 64 s, 10,000 nested
// unclosed <table><tr><td> 46 s, and 100,000 unclosed <b>s had not finished after 120 s (gumbo
// 0.10.1, measured on this shared machine). One linear pass here leaves out the start tags that
// would open deeper than `max_depth` (and their end tags); their text stays. It counts depth as
// the tree builder would for what pages write (void elements, raw text, the end tags HTML implies
// for <li>, <p>, <dt>/<dd>, <option>, cells and rows; an end tag never closes past a table or a
// cell), so a page within the bound reaches gumbo byte for byte as it was. Where its count and
// gumbo's differ on a hostile page, the tree's depth is checked again after parsing (html_page.h).
#pragma once

#include <string>
#include <string_view>

namespace snapdoc::documents {

inline constexpr int kMaxHtmlNesting = 256;

struct BoundedHtml {
    std::string html;
    int max_depth_seen = 0;  // the input's deepest nesting, as this pass counts it
    int dropped_tags = 0;    // start and end tags left out
};

// `xhtml`: the page is XHTML (an EPUB chapter), where "<x/>" is an empty element; each such tag
// is written out as "<x/></x>" so that the HTML5 parser reads it the same way.
BoundedHtml bound_html_nesting(std::string_view html, int max_depth = kMaxHtmlNesting, bool xhtml = false);

}  // namespace snapdoc::documents
