// A web page (.html/.htm) for the CLI and the server: libxml2's HTML parser (safe_xml.h: no network,
// a depth cap), then the same text-with-structure the EPUB chapters get (xhtml_text.h), so a page
// is read as its headings, paragraphs, lists and tables, without tags, scripts, styles or navigation.
// The app keeps its own Qt reader (app/services), which also drops the site's boilerplate.
#include "app/documents/format_readers.h"
#include "app/documents/safe_xml.h"
#include "app/documents/structured_text.h"
#include "app/documents/xhtml_text.h"
#include "engine/common/error.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc::documents {

ExtractedDocument read_html(std::string_view bytes, const std::string& what) {
    // libxml2 would read bytes that are not UTF-8 as Latin-1 and hand back mojibake; a text
    // document must be UTF-8 here as it is everywhere else (UTF-16 with its byte order mark aside).
    const bool utf16 = bytes.size() >= 2 && ((bytes[0] == '\xff' && bytes[1] == '\xfe') ||
                                             (bytes[0] == '\xfe' && bytes[1] == '\xff'));
    if (!utf16 && !utf8::is_valid(bytes)) throw Error(what + " is not valid UTF-8 text (save it as UTF-8)");
    const XmlDoc page = parse_html(bytes, what);
    StructuredText out;
    append_html_blocks(page.get(), out);
    ExtractedDocument d;
    d.format = "html";
    d.title = html_title(page.get());
    if (d.title.empty()) d.title = out.first_heading();
    d.text = out.finish();
    return d;
}

}  // namespace snapdoc::documents
