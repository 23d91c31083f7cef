// Reading a document file of any format snapdoc knows into text with structure, for the CLI, the
// server and the app alike (Qt-free). PDF, DOCX, ODT and EPUB go through their readers; anything
// else is read as UTF-8 text (which refuses binary files). Every refusal is a snapdoc::Error that
// names the file and says what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "app/documents/extracted_document.h"
#include "app/documents/ocr_options.h"

namespace snapdoc::documents {

// Files of these formats (PDF, EPUB, Office documents) may be larger than a text file: mostly
// images and fonts, of which only the text is kept.
inline constexpr int64_t kMaxContainerBytes = int64_t{256} << 20;

// "pdf", "docx", "odt" or "epub" for a file name with that suffix (any case); "" otherwise. Also
// in a build that left the formats out, whose readers then refuse such a file in words.
std::string structured_format(const std::string& file_name);

// Reads `path`: a structured format by its suffix, anything else as UTF-8 text ("txt" or "md").
// A PDF's pages without a text layer are read by OCR as `ocr` says (ocr_options.h).
ExtractedDocument read_document(const std::filesystem::path& path, const OcrOptions& ocr = {});

// Extracts a structured `format` from its bytes (an upload); `what` names it in messages.
ExtractedDocument extract_document(std::string_view bytes, const std::string& format, const std::string& what,
                                   const OcrOptions& ocr = {});

}  // namespace snapdoc::documents
