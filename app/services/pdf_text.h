// Text extraction from PDF files with Poppler (Qt 6 binding): the text layer of each page, in
// reading order as Poppler sees it. Scanned pages have no text layer: document_ingest reads them by OCR (app/documents).
#pragma once

#include <QString>
#include <atomic>
#include <functional>
#include <vector>

namespace snapdoc::services {

struct PdfText {
    QString title;               // document info "Title" ("" if none)
    std::vector<QString> pages;  // text of each page
};

// Throws snapdoc::Error for a file Poppler cannot open or a password-protected one.
PdfText extract_pdf_text(const QString& path, const std::function<void(int done, int total)>& progress,
                         const std::atomic<bool>* cancel);

}  // namespace snapdoc::services
