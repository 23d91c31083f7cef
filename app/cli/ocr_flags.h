// The OCR flags of the commands that read a document (ask, prompt, inspect): --ocr-lang LANG
// (Tesseract's code, "deu" or "deu+eng"; default: the locale's language if installed, else
// English) and --no-ocr. Progress of OCR goes to stderr, one line per page with an estimate.
#pragma once

#include <atomic>
#include <filesystem>
#include <vector>

#include "app/common/args.h"
#include "app/documents/document_reader.h"

namespace snapdoc::cli {

std::vector<FlagSpec> ocr_flags();  // --ocr-lang --no-ocr
documents::OcrOptions ocr_options_from(const Args& args, const std::atomic<bool>* cancel = nullptr);

// read_document with the flags' OCR options, saying on stderr which pages were recognised.
documents::ExtractedDocument read_document_for_cli(const std::filesystem::path& path, const Args& args,
                                                   const std::atomic<bool>* cancel = nullptr);

}  // namespace snapdoc::cli
