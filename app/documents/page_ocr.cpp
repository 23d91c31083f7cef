#include "app/documents/page_ocr.h"

#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>

#include <algorithm>

#include "app/documents/ocr_language.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

PageOcr::PageOcr(const std::string& language) : api_(std::make_unique<tesseract::TessBaseAPI>()) {
    // Tesseract's diagnostics ("Estimating resolution...") would land on the user's terminal.
    api_->SetVariable("debug_file", "/dev/null");
    const std::string dir = tessdata_dir().string();
    if (api_->Init(dir.empty() ? nullptr : dir.c_str(), language.c_str()) != 0)
        throw Error("Tesseract could not load the OCR language '" + language + "' from " +
                    (dir.empty() ? std::string("its default folder") : dir) +
                    " (its traineddata file may be damaged; reinstall its tesseract-ocr-* package)");
    api_->SetPageSegMode(tesseract::PSM_AUTO);
}

PageOcr::~PageOcr() {
    if (api_) api_->End();
}

std::string PageOcr::recognise(const poppler::page& page, const std::atomic<bool>* cancel) {
    const poppler::rectf box = page.page_rect();
    const double longest_points = std::max(box.width(), box.height());
    if (!(longest_points > 0)) return {};
    const double dpi = std::min(kOcrDpi, kOcrMaxPixels * 72.0 / longest_points);
    poppler::page_renderer renderer;
    renderer.set_image_format(poppler::image::format_gray8);
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    const poppler::image image = renderer.render_page(&page, dpi, dpi);
    if (!image.is_valid() || image.width() < 8 || image.height() < 8) return {};

    api_->SetImage(reinterpret_cast<const unsigned char*>(image.const_data()), image.width(), image.height(), 1,
                   image.bytes_per_row());
    api_->SetSourceResolution(static_cast<int>(dpi));
    tesseract::ETEXT_DESC monitor;
    if (cancel) {
        monitor.cancel = [](void* flag, int) { return static_cast<const std::atomic<bool>*>(flag)->load(); };
        monitor.cancel_this = const_cast<std::atomic<bool>*>(cancel);
    }
    if (api_->Recognize(&monitor) != 0 || (cancel && cancel->load())) {
        api_->Clear();
        return {};
    }
    std::unique_ptr<char[]> text(api_->GetUTF8Text());
    api_->Clear();
    return text ? std::string(text.get()) : std::string();
}

}  // namespace snapdoc::documents
