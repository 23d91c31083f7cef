#include "engine/kv/kv_store_cache.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/model_summary.h"

namespace snapdoc {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSuffix = ".snapkv";
// Keep at least this much free on the cache's disk after writing a file.
constexpr int64_t kFreeSpaceReserve = int64_t{512} << 20;

bool is_cache_file(const fs::path& p) {
    const std::string name = p.filename().string();
    return name.size() > 7 && name[0] != '.' && p.extension() == kSuffix;
}

bool is_temporary(const fs::path& p) {
    // AtomicFileWriter's temporaries: ".<name>.tmp-<pid>-<n>" (older builds: ".<name>.tmp-<n>"), of
    // cache files and of the model hash memo.
    const std::string name = p.filename().string();
    return name.size() > 1 && name[0] == '.' &&
           (name.find(std::string(kSuffix) + ".tmp-") != std::string::npos ||
            name.rfind("." + std::string(kModelHashMemoName) + ".tmp-", 0) == 0);
}

// Whether the process that wrote temporary `p` is gone: its pid (in the name) names no process.
// A name without a pid (an older build), or a pid that a live process has now, says nothing; such
// a temporary goes when it is an hour old. (A writer in another pid namespace sharing the folder
// would look gone: its rename then fails and that save is a warning, never a wrong file.)
bool writer_is_gone(const fs::path& p) {
    const std::string name = p.filename().string();
    const std::size_t at = name.rfind(".tmp-");
    const std::size_t dash = name.find('-', at + 5);
    if (at == std::string::npos || dash == std::string::npos || dash == at + 5) return false;
    long pid = 0;
    for (std::size_t i = at + 5; i < dash; ++i) {
        if (name[i] < '0' || name[i] > '9' || pid > (1L << 31)) return false;
        pid = pid * 10 + (name[i] - '0');
    }
    if (pid <= 0 || pid > (1L << 30)) return false;
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// A temporary nobody will finish: its writer is gone, or it has not been written for an hour.
bool is_abandoned(const fs::directory_entry& e) {
    std::error_code ec;
    return writer_is_gone(e.path()) ||
           e.last_write_time(ec) < fs::file_time_type::clock::now() - std::chrono::hours(1);
}

struct Entry {
    fs::path path;
    int64_t bytes;
    fs::file_time_type used;
};

}  // namespace

KvStoreCache::KvStoreCache(fs::path dir, int64_t cap_bytes) : dir_(std::move(dir)), cap_bytes_(cap_bytes) {}

ModelIdentity KvStoreCache::model_identity(const fs::path& model_path) const {
    std::error_code ec;
    fs::create_directories(dir_, ec);  // for the memo; without it every open hashes the whole model
    return snapdoc::model_identity(model_path, dir_ / kModelHashMemoName);
}

fs::path KvStoreCache::default_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        return fs::path(xdg) / "snapdoc" / "kv";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "snapdoc" / "kv";
    return fs::temp_directory_path() / "snapdoc-kv-cache";
}

bool KvStoreCache::contains(const KvCacheKey& key) const {
    struct stat st {};
    return ::lstat(path_for(key).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool KvStoreCache::occupied(const fs::path& file) {
    struct stat st {};
    return ::lstat(file.c_str(), &st) == 0;
}

void KvStoreCache::clear_name(const fs::path& file) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ::unlink(file.c_str());
}

void KvStoreCache::touch(const fs::path& file) const {
    // Best effort: a read-only folder still serves hits, it just cannot order them.
    ::utimensat(AT_FDCWD, file.c_str(), nullptr, 0);
}

void KvStoreCache::ensure_dir() const {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_))
        throw Error("cannot create the K/V cache folder " + dir_.string() + ": " + ec.message());
}

std::string KvStoreCache::room_for(int64_t bytes) const {
    if (bytes > cap_bytes_)
        // One decimal: whole MiB read "the file (5 MiB) is larger than the cap (5 MiB)" for 6.0 MiB.
        return "the file (" + format_bytes(bytes) + ") is larger than the K/V cache cap (" + format_bytes(cap_bytes_) +
               ")";
    // A file-size limit (ulimit -f) is known up front: better said now than as EFBIG mid-write.
    struct rlimit fsize {};
    if (::getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
        static_cast<uint64_t>(bytes) > static_cast<uint64_t>(fsize.rlim_cur))
        return "the file (" + format_bytes(bytes) + ") is larger than this process's file-size limit (" +
               format_bytes(static_cast<int64_t>(fsize.rlim_cur)) + ", ulimit -f)";
    struct statvfs fsinfo {};
    if (::statvfs(dir_.c_str(), &fsinfo) == 0) {
        const auto free_bytes =
            static_cast<long double>(fsinfo.f_bavail) * static_cast<long double>(fsinfo.f_frsize);
        if (static_cast<long double>(bytes + kFreeSpaceReserve) > free_bytes)
            return "not enough free disk space in " + dir_.string() + " (" +
                   std::to_string(static_cast<int64_t>(free_bytes) >> 20) + " MiB free, the file needs " +
                   std::to_string(bytes >> 20) + " MiB plus " + std::to_string(kFreeSpaceReserve >> 20) +
                   " MiB reserve)";
    }
    return {};
}

KvStoreCache::Usage KvStoreCache::usage() const {
    Usage u;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file(ec) || !is_cache_file(e.path())) continue;
        u.files++;
        u.bytes += static_cast<int64_t>(e.file_size(ec));
    }
    return u;
}

void KvStoreCache::remove(const fs::path& file) const {
    std::error_code ec;
    fs::remove(file, ec);
    if (ec) spdlog::warn("cannot remove K/V cache file {}: {}", file.string(), ec.message());
}

void KvStoreCache::evict(const fs::path& keep) const {
    std::vector<Entry> entries;
    int64_t total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file(ec)) continue;
        if (is_temporary(e.path())) {
            // A live writer's file takes disk space like a cache file (gigabytes for a long
            // document), so it counts against the cap; an abandoned one goes now.
            if (is_abandoned(e))
                remove(e.path());
            else
                total += static_cast<int64_t>(e.file_size(ec));
            continue;
        }
        if (!is_cache_file(e.path())) continue;
        Entry x{e.path(), static_cast<int64_t>(e.file_size(ec)), e.last_write_time(ec)};
        total += x.bytes;
        if (!keep.empty() && fs::equivalent(x.path, keep, ec)) continue;
        entries.push_back(std::move(x));
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const Entry& x : entries) {
        if (total <= cap_bytes_) break;
        spdlog::info("K/V cache: evicting {} ({} MiB)", x.path.filename().string(), x.bytes >> 20);
        remove(x.path);
        total -= x.bytes;
    }
}

void KvStoreCache::clear() const {
    std::error_code ec;
    // A temporary file may be another process writing right now: only abandoned ones go.
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file(ec)) continue;
        if (is_cache_file(e.path()) || (is_temporary(e.path()) && is_abandoned(e))) remove(e.path());
    }
}

}  // namespace snapdoc
