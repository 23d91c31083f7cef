// Builds ZIP archives (DOCX, ODT, EPUB) in memory with libzip, so the document tests generate
// every file they read instead of committing binary fixtures. Also the small byte edits the
// hostile-archive tests need (a header that lies about an entry's size).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace snapdoc::testing {

struct ZipEntry {
    ZipEntry(std::string entry_name, std::string entry_data, bool store = false)
        : name(std::move(entry_name)), data(std::move(entry_data)), stored(store) {}
    std::string name;
    std::string data;
    bool stored = false;      // no compression (EPUB's and ODF's mimetype must be stored)
    std::string password;     // non-empty: the entry is encrypted (AES-256, else PKWARE)
};

// The archive's bytes; throws std::runtime_error when libzip refuses.
std::string build_zip(const std::vector<ZipEntry>& entries);

// Overwrites the uncompressed-size field of every local and central header with `size` (a zip
// with stored entries only, whose data cannot hold a header signature by chance).
void set_claimed_sizes(std::string& zip, uint32_t size);

// A DOCX with `body` as word/document.xml's <w:body> content, plus the given extra entries.
std::string build_docx(const std::string& body, std::vector<ZipEntry> extra = {});

// A minimal PDF whose pages each show the given lines (Helvetica); correct xref offsets.
std::string build_pdf(const std::vector<std::vector<std::string>>& pages, const std::string& title = "");

}  // namespace snapdoc::testing
