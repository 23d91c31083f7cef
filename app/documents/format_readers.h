// One reader per format, each from the file's bytes; `what` names the file in every message.
// Each throws snapdoc::Error for anything it cannot read; the checks shared by all (no text,
// invalid UTF-8) are in document_reader.cpp.
#pragma once

#include <string>
#include <string_view>

#include "app/documents/extracted_document.h"
#include "app/documents/ocr_options.h"

namespace snapdoc::documents {

// Pages without a text layer are read by OCR as `ocr` says.
ExtractedDocument read_pdf(std::string_view bytes, const std::string& what, const OcrOptions& ocr);
ExtractedDocument read_docx(std::string_view bytes, const std::string& what);
ExtractedDocument read_odt(std::string_view bytes, const std::string& what);
ExtractedDocument read_epub(std::string_view bytes, const std::string& what);
ExtractedDocument read_html(std::string_view bytes, const std::string& what);

}  // namespace snapdoc::documents
