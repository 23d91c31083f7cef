#include "tests/support/zip_builder.h"

#include <zip.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "tests/support/pdf_assembly.h"

namespace snapdoc::testing {

std::string build_zip(const std::vector<ZipEntry>& entries) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (!out) throw std::runtime_error("zip_source_buffer_create failed");
    zip_source_keep(out);  // read back after zip_close
    zip_t* za = zip_open_from_source(out, ZIP_TRUNCATE, &error);
    if (!za) throw std::runtime_error("zip_open_from_source failed");
    for (const ZipEntry& e : entries) {
        zip_source_t* src = zip_source_buffer(za, e.data.data(), e.data.size(), 0);  // alive until zip_close
        const zip_int64_t i = zip_file_add(za, e.name.c_str(), src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
        if (i < 0) throw std::runtime_error("zip_file_add " + e.name + ": " + zip_strerror(za));
        zip_set_file_compression(za, static_cast<zip_uint64_t>(i), e.stored ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 9);
        if (!e.password.empty()) {
            const zip_uint16_t method =
                zip_encryption_method_supported(ZIP_EM_AES_256, 1) ? ZIP_EM_AES_256 : ZIP_EM_TRAD_PKWARE;
            if (zip_file_set_encryption(za, static_cast<zip_uint64_t>(i), method, e.password.c_str()) != 0)
                throw std::runtime_error(std::string("zip_file_set_encryption: ") + zip_strerror(za));
        }
    }
    if (zip_close(za) != 0) throw std::runtime_error(std::string("zip_close: ") + zip_strerror(za));
    std::string bytes;
    zip_stat_t st;
    if (zip_source_stat(out, &st) != 0 || zip_source_open(out) != 0) throw std::runtime_error("zip read back failed");
    bytes.resize(st.size);
    const zip_int64_t got = zip_source_read(out, bytes.data(), bytes.size());
    zip_source_close(out);
    zip_source_free(out);
    if (got != static_cast<zip_int64_t>(bytes.size())) throw std::runtime_error("zip read back short");
    return bytes;
}

void set_claimed_sizes(std::string& zip, uint32_t size) {
    auto put = [&](std::size_t at) {
        for (int b = 0; b < 4; ++b) zip[at + b] = static_cast<char>((size >> (8 * b)) & 0xff);
    };
    for (std::size_t i = 0; i + 30 <= zip.size(); ++i) {
        if (std::memcmp(zip.data() + i, "PK\x03\x04", 4) == 0) put(i + 22);       // local header
        else if (std::memcmp(zip.data() + i, "PK\x01\x02", 4) == 0) put(i + 24);  // central header
    }
}

std::string build_docx(const std::string& body, std::vector<ZipEntry> extra) {
    std::vector<ZipEntry> entries{
        {"[Content_Types].xml",
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Types "
         "xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>"},
        {"word/document.xml",
         "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
         "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>" +
             body + "</w:body></w:document>"}};
    for (auto& e : extra) entries.push_back(std::move(e));
    return build_zip(entries);
}

std::string build_pdf(const std::vector<std::vector<std::string>>& pages, const std::string& title) {
    // Objects: 1 catalog, 2 pages, 3 font, 4 info, then per page a page object and its content.
    std::vector<std::string> objects;
    std::string kids;
    const int n = static_cast<int>(pages.size());
    for (int p = 0; p < n; ++p) kids += std::to_string(5 + 2 * p) + " 0 R ";
    objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
    objects.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(n) + " >>");
    objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    objects.push_back("<< /Title (" + title + ") >>");
    for (int p = 0; p < n; ++p) {
        std::string content = "BT /F1 12 Tf 72 720 Td 16 TL\n";
        for (const auto& line : pages[p]) content += "(" + line + ") Tj T*\n";
        content += "ET";
        objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                          "/Contents " + std::to_string(6 + 2 * p) + " 0 R >>");
        objects.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
    }
    return assemble_pdf(objects, "/Info 4 0 R");
}

}  // namespace snapdoc::testing
