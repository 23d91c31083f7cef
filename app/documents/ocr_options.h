// How a PDF's pages without a text layer (scans) are read by OCR (Tesseract): the language, where
// recognised text is cached, and a progress callback that can stop the run. Header-only so the
// build without the document formats (SNAPDOC_DOCUMENT_FORMATS=OFF) compiles the same callers.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

namespace snapdoc::documents {

// Said before each page is recognised.
struct OcrProgress {
    int page = 0;               // the PDF page about to be recognised, 1-based
    int index = 0;              // 1-based among the pages that need OCR
    int count = 0;              // how many pages need OCR
    double seconds_left = -1;   // estimate from the pages done so far; -1 before the first is done
};

struct OcrOptions {
    bool enabled = true;        // false: a page without a text layer stays empty (--no-ocr)
    std::string language;       // Tesseract's codes, "deu" or "deu+eng"; "" = default_ocr_language()
    bool use_cache = true;      // read and write the OCR cache
    std::filesystem::path cache_dir;  // "" = default_ocr_cache_dir()
    // Returns false to stop: the read then throws Cancelled and keeps (and caches) nothing.
    std::function<bool(const OcrProgress&)> progress;
    const std::atomic<bool>* cancel = nullptr;  // also stops, checked within a page as well
};

}  // namespace snapdoc::documents
