// PDF with a text layer through Poppler's C++ binding: each page's text in Poppler's reading
// order, pages apart by a blank line, where each starts kept (citations will name pages).
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <memory>

#include "app/documents/format_readers.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

std::string utf8(const poppler::ustring& s) {
    const poppler::byte_array bytes = s.to_utf8();
    return std::string(bytes.begin(), bytes.end());
}

// Poppler reports a damaged file's every problem on stderr; the Error thrown below says it once.
void quiet(const std::string&, void*) {}

}  // namespace

ExtractedDocument read_pdf(std::string_view bytes, const std::string& what) {
    poppler::set_debug_error_function(quiet, nullptr);
    std::unique_ptr<poppler::document> doc(
        poppler::document::load_from_raw_data(bytes.data(), static_cast<int>(bytes.size())));
    if (!doc) throw Error(what + " is not a readable PDF (damaged, or not a PDF)");
    if (doc->is_locked())
        throw Error(what + " is password-protected; save it without a password and open it again");
    ExtractedDocument d;
    d.format = "pdf";
    d.title = utf8(doc->info_key("Title"));
    bool any_text = false;
    const int pages = doc->pages();
    for (int i = 0; i < pages; ++i) {
        std::unique_ptr<poppler::page> page(doc->create_page(i));
        std::string text = page ? utf8(page->text()) : std::string();
        // "\r\n" and "\r" become "\n", and a form feed is not text: offsets must match the view's.
        std::string clean;
        clean.reserve(text.size());
        for (std::size_t k = 0; k < text.size(); ++k) {
            if (text[k] == '\r') {
                clean += '\n';
                if (k + 1 < text.size() && text[k + 1] == '\n') ++k;
            } else if (text[k] != '\f') {
                clean += text[k];
            }
        }
        while (!clean.empty() && (clean.back() == '\n' || clean.back() == ' ')) clean.pop_back();
        any_text = any_text || clean.find_first_not_of(" \t\n") != std::string::npos;
        if (i > 0) d.text += "\n\n";
        d.page_starts.push_back(d.text.size());
        d.text += clean;
    }
    if (!any_text)
        throw Error(what + " has no text layer (" + std::to_string(pages) + (pages == 1 ? " page" : " pages") +
                    ", probably scanned images); snapdoc does not do OCR");
    d.text += "\n";
    return d;
}

}  // namespace snapdoc::documents
