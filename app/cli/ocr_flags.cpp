#include "app/cli/ocr_flags.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace snapdoc::cli {

std::vector<FlagSpec> ocr_flags() { return {{{"--ocr-lang"}}, {{"--no-ocr"}, false}}; }

documents::OcrOptions ocr_options_from(const Args& args, const std::atomic<bool>* cancel) {
    documents::OcrOptions o;
    o.enabled = !args.has("no-ocr");
    o.language = args.str("ocr-lang");
    o.cancel = cancel;
    o.progress = [](const documents::OcrProgress& p) {
        if (p.seconds_left < 0)
            std::fprintf(stderr, "OCR page %d/%d (PDF page %d)\n", p.index, p.count, p.page);
        else
            std::fprintf(stderr, "OCR page %d/%d (PDF page %d), ~%.0f s left\n", p.index, p.count, p.page,
                         std::ceil(p.seconds_left));
        return true;
    };
    return o;
}

documents::ExtractedDocument read_document_for_cli(const std::filesystem::path& path, const Args& args,
                                                   const std::atomic<bool>* cancel) {
    documents::ExtractedDocument d = documents::read_document(path, ocr_options_from(args, cancel));
    if (!d.recognised_pages.empty()) {
        std::string pages;
        for (int p : d.recognised_pages) pages += (pages.empty() ? "" : ", ") + std::to_string(p + 1);
        std::fprintf(stderr, "note: %zu of %zu pages of %s have no text layer; their text was recognised by OCR (%s)%s: %s\n",
                     d.recognised_pages.size(), d.page_starts.size(), path.string().c_str(), d.ocr_language.c_str(),
                     d.ocr_from_cache ? ", from the OCR cache" : "",
                     pages.c_str());
    }
    return d;
}

}  // namespace snapdoc::cli
