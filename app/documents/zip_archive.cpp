#include "app/documents/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <vector>

#include "engine/common/error.h"

namespace snapdoc::documents {

struct ZipArchive::Handle {
    zip_t* zip = nullptr;
    ~Handle() {
        if (zip) zip_discard(zip);  // read-only: nothing to write back
    }
};

namespace {

bool unsafe_name(const std::string& name) {
    if (name.empty() || name[0] == '/' || name[0] == '\\') return true;
    if (name.size() > 1 && name[1] == ':') return true;  // "C:..."
    if (name.find('\\') != std::string::npos || name.find('\0') != std::string::npos) return true;
    // "..", "../x", "x/../y", "x/..": any path component that climbs.
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t end = std::min(name.find('/', start), name.size());
        if (name.compare(start, end - start, "..") == 0 && end - start == 2) return true;
        start = end + 1;
    }
    return false;
}

std::string mib(uint64_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

ZipArchive::ZipArchive(std::string_view bytes, std::string what, ZipLimits limits)
    : zip_(std::make_unique<Handle>()), what_(std::move(what)), limits_(limits) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (src) {
        zip_->zip = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
        if (!zip_->zip) zip_source_free(src);
    }
    if (!zip_->zip) {
        const std::string why = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw Error(what_ + " is not a readable ZIP archive (" + why + ")");
    }
    zip_error_fini(&error);
    const zip_int64_t n = zip_get_num_entries(zip_->zip, 0);
    if (n < 0 || static_cast<uint64_t>(n) > limits_.max_entries)
        throw Error(what_ + " has " + std::to_string(n) + " entries; the limit is " +
                    std::to_string(limits_.max_entries));
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* name = zip_get_name(zip_->zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
        if (!name || unsafe_name(name))
            throw Error(what_ + " has an entry with an unsafe name (" + (name ? std::string(name) : "?") +
                        "): absolute or climbing out with ../");
    }
}

ZipArchive::~ZipArchive() = default;

bool ZipArchive::contains(const std::string& name) const {
    return zip_name_locate(zip_->zip, name.c_str(), 0) >= 0;
}

std::optional<std::string> ZipArchive::read_if_present(const std::string& name) {
    if (!contains(name)) return std::nullopt;
    return read(name);
}

std::string ZipArchive::read(const std::string& name) {
    const zip_int64_t index = zip_name_locate(zip_->zip, name.c_str(), 0);
    if (index < 0) throw Error(what_ + " has no " + name + " (the archive is incomplete or not this format)");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip_->zip, static_cast<zip_uint64_t>(index), 0, &st) != 0)
        throw Error(what_ + ": cannot read the entry " + name);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        throw Error(what_ + " is encrypted (" + name + "); save it without a password and open it again");
    // The header's claim is checked first (a 2 GB entry is refused before any inflating) and the
    // real size again below, since a header can lie.
    if ((st.valid & ZIP_STAT_SIZE) && st.size > limits_.max_entry_bytes)
        throw Error(what_ + ": the entry " + name + " claims " + mib(st.size) + " uncompressed; the limit is " +
                    mib(limits_.max_entry_bytes));
    zip_file_t* f = zip_fopen_index(zip_->zip, static_cast<zip_uint64_t>(index), 0);
    if (!f) throw Error(what_ + ": cannot open the entry " + name + " (" + zip_strerror(zip_->zip) + ")");
    const uint64_t compressed = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    std::string out;
    std::vector<char> chunk(64 * 1024);
    try {
        for (;;) {
            const zip_int64_t got = zip_fread(f, chunk.data(), chunk.size());
            if (got < 0)
                throw Error(what_ + ": the entry " + name + " is damaged (" + zip_file_strerror(f) + ")");
            if (got == 0) break;
            out.append(chunk.data(), static_cast<std::size_t>(got));
            total_read_ += static_cast<uint64_t>(got);
            if (out.size() > limits_.max_entry_bytes)
                throw Error(what_ + ": the entry " + name + " inflates past " + mib(limits_.max_entry_bytes) +
                            " (a zip bomb?)");
            if (total_read_ > limits_.max_total_bytes)
                throw Error(what_ + " inflates past " + mib(limits_.max_total_bytes) + " in all (a zip bomb?)");
            // Small entries compress well legitimately (a page of repeated markup); past 1 MiB a
            // ratio above the cap is what bombs do, not documents.
            if (out.size() > (uint64_t{1} << 20) && out.size() > limits_.max_ratio * std::max<uint64_t>(compressed, 1))
                throw Error(what_ + ": the entry " + name + " inflates more than " + std::to_string(limits_.max_ratio) +
                            " times its compressed size (a zip bomb?)");
        }
    } catch (...) {
        zip_fclose(f);
        throw;
    }
    zip_fclose(f);
    return out;
}

std::optional<std::string> resolve_archive_path(const std::string& base, const std::string& href) {
    std::string decoded;
    for (std::size_t i = 0; i < href.size(); ++i) {
        if (href[i] == '#' || href[i] == '?') break;  // a fragment or query is not part of the file
        auto hex = [](char c) {
            return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        };
        if (href[i] == '%' && i + 2 < href.size() && hex(href[i + 1]) >= 0 && hex(href[i + 2]) >= 0) {
            decoded += static_cast<char>(hex(href[i + 1]) * 16 + hex(href[i + 2]));
            i += 2;
        } else {
            decoded += href[i];
        }
    }
    if (decoded.empty() || decoded[0] == '/' || decoded.find("://") != std::string::npos) return std::nullopt;
    std::vector<std::string> parts;
    const std::string full = base + decoded;
    std::size_t start = 0;
    while (start <= full.size()) {
        const std::size_t end = std::min(full.find('/', start), full.size());
        const std::string part = full.substr(start, end - start);
        if (part == "..") {
            if (parts.empty()) return std::nullopt;
            parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        start = end + 1;
    }
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
    if (out.empty()) return std::nullopt;
    return out;
}

}  // namespace snapdoc::documents
