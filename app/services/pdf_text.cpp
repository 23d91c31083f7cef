#include "app/services/pdf_text.h"

#include <poppler-qt6.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "app/services/third_party_messages.h"
#include "engine/common/error.h"

namespace snapdoc::services {

PdfText extract_pdf_text(const QString& path, const std::function<void(int done, int total)>& progress,
                         const std::atomic<bool>* cancel) {
    route_poppler_messages_to_log();
    const PopplerMessageTally tally;
    const std::unique_ptr<Poppler::Document> doc = Poppler::Document::load(path);
    if (!doc) throw Error(path.toStdString() + " is not a readable PDF file (damaged, or not a PDF)");
    if (doc->isLocked()) throw Error(path.toStdString() + " is password-protected; snapdoc cannot read it");
    PdfText out;
    out.title = doc->info(QStringLiteral("Title")).trimmed();
    const int n = doc->numPages();
    out.pages.reserve(n);
    for (int i = 0; i < n; ++i) {
        if (cancel && cancel->load()) throw Cancelled();
        const std::unique_ptr<Poppler::Page> page = doc->page(i);
        // A null rectangle means the whole page.
        out.pages.push_back(page ? page->text(QRectF()) : QString());
        if (progress) progress(i + 1, n);
    }
    if (tally.count() > 0)
        spdlog::warn(
            "{}: Poppler reported {} problem{} in this PDF (first: \"{}\"); the text may be incomplete. "
            "The details are in the log at debug level.",
            path.toStdString(), tally.count(), tally.count() == 1 ? "" : "s", tally.first().toStdString());
    return out;
}

}  // namespace snapdoc::services
