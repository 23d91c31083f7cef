// A ZIP archive (DOCX, ODT, EPUB are ZIP files) read through libzip with limits, because the
// archive is untrusted input: every entry name is checked when the archive is opened (no "../",
// no absolute names), and an entry is read only if it is not encrypted, and while it is read its
// real size is counted against the per-entry and total caps and the compression ratio, so a zip
// bomb or a header that lies is stopped as it inflates, not after.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace snapdoc::documents {

struct ZipLimits {
    uint64_t max_entry_bytes = uint64_t{64} << 20;   // one entry, uncompressed
    uint64_t max_total_bytes = uint64_t{256} << 20;  // all entries read from one archive
    uint64_t max_ratio = 200;                        // uncompressed / compressed, past the first MiB
    uint64_t max_entries = 20000;
};

class ZipArchive {
public:
    // `bytes` must outlive the archive. `what` names the file in every message ("document x.docx").
    ZipArchive(std::string_view bytes, std::string what, ZipLimits limits = {});
    ~ZipArchive();
    ZipArchive(const ZipArchive&) = delete;
    ZipArchive& operator=(const ZipArchive&) = delete;

    bool contains(const std::string& name) const;
    // The entry's bytes; throws Error when it is absent, encrypted or over a limit.
    std::string read(const std::string& name);
    std::optional<std::string> read_if_present(const std::string& name);

private:
    struct Handle;
    std::unique_ptr<Handle> zip_;
    std::string what_;
    ZipLimits limits_;
    uint64_t total_read_ = 0;
};

// Resolves `href` (a relative URL inside the archive, as an OPF or XHTML writes it) against the
// folder `base` ("OEBPS/"): "%20" escapes decoded, "./" dropped, "../" applied; nullopt when it
// would leave the archive's root.
std::optional<std::string> resolve_archive_path(const std::string& base, const std::string& href);

}  // namespace snapdoc::documents
