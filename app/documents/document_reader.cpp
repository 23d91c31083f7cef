#include "app/documents/document_reader.h"

#include <algorithm>
#include <cctype>

#include "app/common/document_text.h"
#include "app/documents/format_readers.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"

namespace snapdoc::documents {

namespace {

std::string lower_suffix(const std::string& file_name) {
    const std::size_t dot = file_name.rfind('.');
    if (dot == std::string::npos || file_name.find('/', dot) != std::string::npos) return {};
    std::string s = file_name.substr(dot + 1);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

std::string structured_format(const std::string& file_name) {
    static const std::vector<std::string> known{"pdf", "docx", "odt", "epub", "html"};
    std::string s = lower_suffix(file_name);
    if (s == "htm") s = "html";
    return std::find(known.begin(), known.end(), s) != known.end() ? s : std::string();
}

ExtractedDocument extract_document(std::string_view bytes, const std::string& format, const std::string& what,
                                   const OcrOptions& ocr) {
    if (bytes.empty()) throw Error(what + " is empty");
    ExtractedDocument d = format == "pdf"    ? read_pdf(bytes, what, ocr)
                          : format == "docx" ? read_docx(bytes, what)
                          : format == "odt"  ? read_odt(bytes, what)
                          : format == "epub" ? read_epub(bytes, what)
                          : format == "html" ? read_html(bytes, what)
                                             : throw Error(what + ": snapdoc does not read the format '" + format + "'");
    if (d.text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error(what + " has no text (" + format + " with nothing to read)");
    // The parsers hand back UTF-8; this catches what slipped through (a PDF's broken text layer).
    check_document_text(d.text, what);
    return d;
}

ExtractedDocument read_document(const std::filesystem::path& path, const OcrOptions& ocr) {
    const std::string format = structured_format(path.filename().string());
    const std::string what = "document " + path.string();
    if (format.empty()) {
        ExtractedDocument d;
        const std::string s = lower_suffix(path.filename().string());
        d.format = (s == "md" || s == "markdown") ? "md" : "txt";
        d.text = read_document_text(path);
        return d;
    }
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error(what + " does not exist");
    // The guarded open: a FIFO or a symlink to /dev/zero is refused, not read forever.
    InputFile in = InputFile::open(path, "document");
    if (static_cast<int64_t>(in.size()) > kMaxContainerBytes)
        throw Error(what + " is " + std::to_string(in.size() >> 20) + " MiB; the limit for a ." + format + " is " +
                    std::to_string(kMaxContainerBytes >> 20) + " MiB");
    const std::string bytes = in.read_all(static_cast<std::size_t>(kMaxContainerBytes));
    return extract_document(bytes, format, what, ocr);
}

}  // namespace snapdoc::documents
