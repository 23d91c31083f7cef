// The build without Poppler, libzip, libxml2 and gumbo (SNAPDOC_DOCUMENT_FORMATS=OFF: the GPU machine):
// no structured formats, so a .pdf/.docx/.odt/.epub/.html is refused in words, not read as binary text
// (or, for a web page, as its tags).
#include "app/documents/document_reader.h"
#include "app/documents/format_readers.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {
[[noreturn]] void left_out(const std::string& what) {
    throw Error(what + ": this build of snapdoc reads only text files (it was built with "
                       "SNAPDOC_DOCUMENT_FORMATS=OFF, without Poppler, libzip, libxml2 and gumbo)");
}
}  // namespace

ExtractedDocument read_pdf(std::string_view, const std::string& what, const OcrOptions&) { left_out(what); }
ExtractedDocument read_docx(std::string_view, const std::string& what) { left_out(what); }
ExtractedDocument read_odt(std::string_view, const std::string& what) { left_out(what); }
ExtractedDocument read_epub(std::string_view, const std::string& what) { left_out(what); }
ExtractedDocument read_html(std::string_view, const std::string& what) { left_out(what); }

}  // namespace snapdoc::documents
