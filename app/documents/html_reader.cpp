// A web page (.html/.htm) for the CLI, the server and the app: parsed as HTML5 by gumbo
// (html_page.h), then the same text-with-structure the EPUB chapters get, so a page is read as its
// headings, paragraphs, lists and tables, without tags, scripts, styles, navigation or footer.
#include "app/common/document_text.h"
#include "app/documents/format_readers.h"
#include "app/documents/html_page.h"
#include "app/documents/structured_text.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

ExtractedDocument read_html(std::string_view bytes, const std::string& what) {
    // The limit of a text document (64 MiB), not the larger one of the archives.
    if (static_cast<int64_t>(bytes.size()) > kMaxDocumentBytes)
        throw Error(what + " is " + std::to_string(bytes.size() >> 20) + " MiB; the limit for a web page is " +
                    std::to_string(kMaxDocumentBytes >> 20) + " MiB");
    const HtmlPage page(bytes, what);
    StructuredText out;
    page.append_blocks(out);
    return out.finish_document("html", page.title());
}

}  // namespace snapdoc::documents
