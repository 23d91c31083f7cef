#include "app/cli/document_set_flags.h"

#include <map>

#include "app/cli/ocr_flags.h"
#include "engine/common/error.h"

namespace snapdoc::cli {

std::vector<SetDocument> documents_for_cli(const Args& args, const std::atomic<bool>* cancel) {
    const std::vector<std::string> paths = args.all("doc");
    if (paths.empty()) throw Error("missing required flag --doc (give it once per document)");
    std::map<std::string, int> names;
    for (const auto& p : paths) ++names[std::filesystem::path(p).filename().string()];
    std::vector<SetDocument> docs;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        SetDocument d;
        try {
            documents::ExtractedDocument read = read_document_for_cli(paths[i], args, cancel);
            d.text = std::move(read.text);
            d.page_starts = std::move(read.page_starts);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            if (paths.size() == 1) throw;
            // The reader's message names the path; which of the documents it was is said too.
            throw Error("document " + std::to_string(i + 1) + " of " + std::to_string(paths.size()) + " (" +
                        paths[i] + "): " + e.what());
        }
        const std::string file = std::filesystem::path(paths[i]).filename().string();
        d.name = names[file] > 1 ? paths[i] : file;
        docs.push_back(std::move(d));
    }
    return docs;
}

}  // namespace snapdoc::cli
