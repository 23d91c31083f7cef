// PDF through Poppler's C++ binding: each page's text layer in Poppler's reading order, pages apart
// by a blank line, where each starts kept (citations name pages). Pages without a text layer
// (scans) are read by OCR (page_ocr.h) unless OCR is off, and their text is cached (ocr_cache.h).
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "app/documents/format_readers.h"
#include "app/documents/ocr_cache.h"
#include "app/documents/ocr_language.h"
#include "app/documents/page_ocr.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

std::string utf8(const poppler::ustring& s) {
    const poppler::byte_array bytes = s.to_utf8();
    return std::string(bytes.begin(), bytes.end());
}

// Poppler reports a damaged file's every problem on stderr; the Error thrown below says it once.
void quiet(const std::string&, void*) {}

// "\r\n" and "\r" become "\n", a form feed is not text, and trailing blank lines and spaces go:
// offsets must match the view's.
std::string clean_page_text(const std::string& text) {
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
    return clean;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\n") == std::string::npos; }

std::string pages_word(std::size_t n) { return std::to_string(n) + (n == 1 ? " page" : " pages"); }

[[noreturn]] void stopped(const std::string& what) {
    throw Cancelled("OCR of " + what + " stopped; nothing of it was kept");
}

// OCRs `todo` (0-based page indices) in order, saying progress before each page.
std::map<int, std::string> recognise_pages(poppler::document& doc, const std::vector<int>& todo,
                                           const std::string& language, const OcrOptions& options,
                                           const std::string& what) {
    PageOcr ocr(language);
    std::map<int, std::string> out;
    const auto start = std::chrono::steady_clock::now();
    const int count = static_cast<int>(todo.size());
    for (int i = 0; i < count; ++i) {
        if (options.cancel && options.cancel->load()) stopped(what);
        if (options.progress) {
            OcrProgress p;
            p.page = todo[i] + 1;
            p.index = i + 1;
            p.count = count;
            if (i > 0) {
                const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                p.seconds_left = spent / i * (count - i);
            }
            if (!options.progress(p)) stopped(what);
        }
        std::unique_ptr<poppler::page> page(doc.create_page(todo[i]));
        out[todo[i]] = page ? clean_page_text(ocr.recognise(*page, options.cancel)) : std::string();
        if (options.cancel && options.cancel->load()) stopped(what);
    }
    return out;
}

}  // namespace

ExtractedDocument read_pdf(std::string_view bytes, const std::string& what, const OcrOptions& options) {
    poppler::set_debug_error_function(quiet, nullptr);
    std::unique_ptr<poppler::document> doc(
        poppler::document::load_from_raw_data(bytes.data(), static_cast<int>(bytes.size())));
    if (!doc) throw Error(what + " is not a readable PDF (damaged, or not a PDF)");
    if (doc->is_locked())
        throw Error(what + " is password-protected; save it without a password and open it again");
    ExtractedDocument d;
    d.format = "pdf";
    d.title = utf8(doc->info_key("Title"));
    const int pages = doc->pages();
    std::vector<std::string> page_text(static_cast<std::size_t>(std::max(pages, 0)));
    std::vector<int> without_text;
    for (int i = 0; i < pages; ++i) {
        std::unique_ptr<poppler::page> page(doc->create_page(i));
        page_text[i] = page ? clean_page_text(utf8(page->text())) : std::string();
        if (blank(page_text[i])) without_text.push_back(i);
    }
    if (!without_text.empty() && options.enabled) {
        d.ocr_language = resolve_ocr_language(options.language);
        const std::filesystem::path dir = options.cache_dir.empty() ? default_ocr_cache_dir() : options.cache_dir;
        const std::filesystem::path cache =
            options.use_cache && !dir.empty() ? ocr_cache_file(dir, bytes, d.ocr_language) : std::filesystem::path();
        std::optional<std::map<int, std::string>> recognised;
        if (!cache.empty()) recognised = load_ocr_cache(cache, d.ocr_language);
        // A cache file must cover exactly the pages that need OCR (else it is another file's).
        if (recognised && (recognised->size() != without_text.size() ||
                           !std::all_of(without_text.begin(), without_text.end(),
                                        [&](int i) { return recognised->count(i) == 1; })))
            recognised.reset();
        d.ocr_from_cache = recognised.has_value();
        if (!recognised) recognised = recognise_pages(*doc, without_text, d.ocr_language, options, what);
        bool any = false;
        for (const auto& [i, text] : *recognised) {
            page_text[i] = text;
            if (!blank(text)) {
                d.recognised_pages.push_back(i);
                any = true;
            }
        }
        // Only text worth keeping is cached: a scan OCR cannot read is tried again next time.
        if (any && !d.ocr_from_cache && !cache.empty()) store_ocr_cache(cache, d.ocr_language, *recognised);
    }
    bool any_text = false;
    for (int i = 0; i < pages; ++i) {
        any_text = any_text || !blank(page_text[i]);
        if (i > 0) d.text += "\n\n";
        d.page_starts.push_back(d.text.size());
        d.text += page_text[i];
    }
    if (pages <= 0) throw Error(what + " has no pages");
    if (!any_text) {
        if (!options.enabled)
            throw Error(what + " has no text layer (" + pages_word(pages) +
                        ", probably scanned images) and OCR is off (--no-ocr)");
        throw Error(what + " has no text layer (" + pages_word(pages) + ", probably scanned images) and OCR (" +
                    d.ocr_language + ") recognised no text in it: the scans may be blank, too faint, or not in that "
                    "language (--ocr-lang chooses another)");
    }
    d.text += "\n";
    return d;
}

}  // namespace snapdoc::documents
