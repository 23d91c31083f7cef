// The --doc flags of `ask` (local and --remote): one or more documents, each read in its own format
// (app/documents: text, Markdown, HTML, PDF with OCR, DOCX, ODT, EPUB), titled by its file name, in
// the order given (app/common/document_set.h lays them out; app/common/document_set_load.h loads
// them, reusing the K/V cache file of a leading subset).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "app/common/args.h"
#include "app/common/document_set.h"

namespace snapdoc::cli {

// Every --doc, read in order. A document that is missing, unreadable or empty throws Error naming
// it (its path, and "document 2 of 3" when there are several), before anything else runs. Titles
// are the file names; two documents with the same file name are titled by their paths instead.
std::vector<SetDocument> documents_for_cli(const Args& args, const std::atomic<bool>* cancel = nullptr);

}  // namespace snapdoc::cli
