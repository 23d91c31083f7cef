#include "app/documents/document_reader.h"

namespace snapdoc::documents {

const std::vector<std::string>& structured_formats() {
    static const std::vector<std::string> formats{"pdf", "docx", "odt", "epub"};
    return formats;
}

}  // namespace snapdoc::documents
