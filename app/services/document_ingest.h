// Opening a document file as plain text: .txt/.md as UTF-8 text, .pdf through Poppler (page by
// page, remembering where each page starts), .html/.docx/.odt/.epub through the Qt-free reader the
// CLI and the server share (app/documents). Every refusal is an
// Error whose message names the file and says what is wrong in words a user understands (empty,
// binary, not UTF-8, too large, a PDF without a text layer...). Safe to call off the GUI thread.
#pragma once

#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/documents/ocr_options.h"

namespace snapdoc::services {

struct IngestedDocument {
    QString path;
    QString title;
    QString format;                 // "txt", "md", "html", "pdf", "docx", "odt", "epub"
    std::string text;               // UTF-8 plain text
    int64_t byte_size = 0;          // of the file
    std::vector<int> page_offsets;  // PDF: UTF-16 offset in the text where page i starts
    std::string content_hash;       // SHA-256 of `text`, hex
    // PDF pages without a text layer read by OCR (0-based): Tesseract's reading of a scan, which
    // the document view says was recognised, not read.
    std::vector<int> recognised_pages;
    QString ocr_language;
};

using IngestProgress = std::function<void(int done, int total)>;

// File-name suffixes snapdoc opens as documents (lower case, no dot).
const std::vector<QString>& document_suffixes();
bool is_document_file(const QString& path);

// Reads and extracts `path`. `progress` is called with (pages done, pages) for PDFs and (0|1, 1)
// otherwise; `cancel` is checked between pages. A PDF with pages without a text layer (a scan) is
// read by the Qt-free reader with OCR as `ocr` says (its cancel is `cancel`), or refused when
// ocr.enabled is false. Throws snapdoc::Error (or Cancelled).
IngestedDocument ingest_document(const QString& path, const IngestProgress& progress = {},
                                 const std::atomic<bool>* cancel = nullptr,
                                 documents::OcrOptions ocr = {});

}  // namespace snapdoc::services
