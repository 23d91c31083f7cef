// What the document readers hand back: the document as plain UTF-8 text whose structure is written
// the Markdown way ("# " headings, "- " list items, "| a | b |" table rows, blank lines between
// blocks), so the model, the CLI and the app's view all see the same text, and a .docx answers
// like the same text saved as .md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace snapdoc::documents {

struct ExtractedDocument {
    std::string format;                    // "pdf", "docx", "odt", "epub", "html", "txt", "md"
    std::string title;                     // from the file's metadata or first heading; "" if none
    std::string text;                      // UTF-8, "\n" newlines
    std::vector<std::size_t> page_starts;  // PDF: byte offset in `text` where page i starts
    // PDF pages without a text layer whose text was recognised by OCR (0-based, ascending): their
    // text is Tesseract's reading of the page's image, not the document's own text.
    std::vector<int> recognised_pages;
    std::string ocr_language;              // the Tesseract language they were read in
    bool ocr_from_cache = false;           // their text came from the OCR cache (no OCR this time)
};

}  // namespace snapdoc::documents
