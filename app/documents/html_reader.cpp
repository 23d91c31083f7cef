// A web page (.html/.htm) for the CLI and the server: libxml2's HTML parser (safe_xml.h: no network,
// a depth cap), then the same text-with-structure the EPUB chapters get (xhtml_text.h), so a page
// is read as its headings, paragraphs, lists and tables, without tags, scripts, styles or navigation.
// The app keeps its own Qt reader (app/services), which also drops the site's boilerplate.
#include "app/documents/format_readers.h"
#include "app/documents/safe_xml.h"
#include "app/documents/structured_text.h"
#include "app/documents/xhtml_text.h"

namespace snapdoc::documents {

ExtractedDocument read_html(std::string_view bytes, const std::string& what) {
    // A text document must be UTF-8 here as everywhere else (UTF-16 with its byte order mark aside).
    require_unicode_markup(bytes, what);
    const XmlDoc page = parse_html(bytes, what);
    StructuredText out;
    append_html_blocks(page.get(), out);
    return out.finish_document("html", html_title(page.get()));
}

}  // namespace snapdoc::documents
