// One PDF page's text by OCR: the page rendered by Poppler in grayscale at a resolution Tesseract
// reads well, then recognised by Tesseract. Internal to the PDF reader (it includes Poppler).
#pragma once

#include <poppler-page.h>

#include <atomic>
#include <memory>
#include <string>

namespace tesseract {
class TessBaseAPI;
}

namespace snapdoc::documents {

// Tesseract reads text of 10-12 pt best at about 300 dpi.
inline constexpr double kOcrDpi = 300.0;
// A page is rendered at most this many pixels on its longer side (a poster-sized page is rendered
// at less than kOcrDpi instead of taking gigabytes).
inline constexpr double kOcrMaxPixels = 7000.0;

class PageOcr {
public:
    // `language` must have been checked by resolve_ocr_language; throws Error if Tesseract still
    // cannot load it.
    explicit PageOcr(const std::string& language);
    ~PageOcr();
    PageOcr(const PageOcr&) = delete;
    PageOcr& operator=(const PageOcr&) = delete;

    // The page's recognised UTF-8 text ("" for a page Poppler cannot render or with nothing
    // readable). Stops early when `cancel` is set (the caller checks it).
    std::string recognise(const poppler::page& page, const std::atomic<bool>* cancel);

private:
    std::unique_ptr<tesseract::TessBaseAPI> api_;
};

}  // namespace snapdoc::documents
