#include "app/hub/paused_downloads.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "app/hub/download_files.h"
#include "app/hub/hub_endpoint.h"

namespace fs = std::filesystem;

namespace snapdoc::hub {

namespace {

constexpr std::string_view kSidecarSuffix = ".part.json";

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Bytes of a regular file (never through a link); 0 when absent.
int64_t plain_file_size(const fs::path& p) {
    if (!not_a_plain_file(p).empty()) return 0;
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : static_cast<int64_t>(n);
}

// The sidecar's download as a PausedDownload, or nothing when it cannot be trusted to resume.
std::optional<PausedDownload> from_sidecar(const fs::path& models_dir, const fs::path& sidecar_file) {
    const auto sc = read_sidecar(sidecar_file);
    if (!sc || !sc->bad_sha256.empty()) return std::nullopt;  // a failed copy restarts from the hub
    try {
        check_repo_id(sc->repo);
        check_repo_file_path(sc->file);
        for (const RemoteFile& f : sc->set) check_repo_file_path(f.path);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    // The sidecar must sit where its own repository and file put it.
    if (sidecar_path(models_dir / sc->repo / sc->file).lexically_normal() != sidecar_file.lexically_normal())
        return std::nullopt;
    PausedDownload p;
    p.repo = sc->repo;
    p.revision = sc->revision.empty() ? std::string(kDefaultRevision) : sc->revision;
    if (!sc->set.empty()) {
        p.files = sc->set;
    } else {
        // An engine before the set was recorded: a single file resumes alone; a shard alone would
        // leave its set incomplete, so it is not offered.
        if (parse_shard_name(fs::path(sc->file).filename().string())) return std::nullopt;
        p.files.push_back({sc->file, sc->size_bytes, sc->sha256});
    }
    if (std::none_of(p.files.begin(), p.files.end(), [&](const RemoteFile& f) { return f.path == sc->file; }))
        return std::nullopt;
    p.bytes_total = 0;
    for (const RemoteFile& f : p.files) {
        const fs::path final_path = models_dir / p.repo / f.path;
        const int64_t complete = plain_file_size(final_path);
        p.bytes_done += complete > 0 ? complete : plain_file_size(part_path(final_path));
        if (f.size_bytes < 0 || p.bytes_total < 0)
            p.bytes_total = -1;
        else
            p.bytes_total += f.size_bytes;
    }
    return p;
}

}  // namespace

std::string PausedDownload::title() const {
    if (files.empty()) return repo;
    const std::string quant = quant_from_file_name(fs::path(files.front().path).filename().string());
    return repo + " " + (quant.empty() ? files.front().path : quant);
}

std::vector<PausedDownload> find_paused_downloads(const fs::path& models_dir) {
    std::vector<PausedDownload> found;
    std::set<std::string> seen;  // one entry per set, however many of its files are partial
    std::error_code ec;
    // Links are not followed: the folder's own files only.
    fs::recursive_directory_iterator it(models_dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (it.depth() > 8) {  // owner/name/sub/dirs: deeper is not the engine's layout
            it.disable_recursion_pending();
            continue;
        }
        const std::string name = it->path().filename().string();
        if (!ends_with(name, kSidecarSuffix) || !it->is_regular_file(ec)) continue;
        auto p = from_sidecar(models_dir, it->path());
        if (!p) continue;
        std::string key = p->repo + "\n" + p->revision;
        for (const RemoteFile& f : p->files) key += "\n" + f.path;
        if (seen.insert(key).second) found.push_back(std::move(*p));
    }
    std::sort(found.begin(), found.end(), [](const PausedDownload& a, const PausedDownload& b) {
        return a.repo != b.repo ? a.repo < b.repo : a.files.front().path < b.files.front().path;
    });
    return found;
}

DownloadRequest resume_request(const PausedDownload& paused, const HubEndpoint& endpoint, const fs::path& models_dir) {
    DownloadRequest r;
    r.endpoint = endpoint;
    r.repo = paused.repo;
    r.revision = paused.revision;
    r.files = paused.files;
    r.models_dir = models_dir;
    return r;
}

}  // namespace snapdoc::hub
