// HTML/XHTML as parsed by libxml2 (safe_xml.h) turned into StructuredText: h1-h6 headings,
// paragraphs, nested lists, table rows; scripts, styles and navigation left out.
#pragma once

#include <libxml/tree.h>

#include <string>

#include "app/documents/structured_text.h"

namespace snapdoc::documents {

// Appends the blocks of `doc`'s <body> to `out`.
void append_html_blocks(const xmlDoc* doc, StructuredText& out);
// The page's <title>, whitespace collapsed ("" if none).
std::string html_title(const xmlDoc* doc);

}  // namespace snapdoc::documents
