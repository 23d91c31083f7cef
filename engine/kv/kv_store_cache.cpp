#include "engine/kv/kv_store_cache.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
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
#include "engine/kv/checksum64.h"
#include "engine/model/model_summary.h"

namespace snapdoc {

namespace fs = std::filesystem;

namespace {

// Enough for a GGUF header with its metadata (vocabulary included) on the models we run; the size
// and mtime catch a rewrite of the rest.
constexpr std::size_t kIdentityPrefixBytes = std::size_t{8} << 20;
constexpr const char* kSuffix = ".snapkv";
// Keep at least this much free on the cache's disk after writing a file.
constexpr int64_t kFreeSpaceReserve = int64_t{512} << 20;

bool is_cache_file(const fs::path& p) {
    const std::string name = p.filename().string();
    return name.size() > 7 && name[0] != '.' && p.extension() == kSuffix;
}

bool is_temporary(const fs::path& p) {
    // AtomicFileWriter's temporaries: ".<name>.tmp-<n>".
    const std::string name = p.filename().string();
    return name.size() > 1 && name[0] == '.' &&
           name.find(std::string(kSuffix) + ".tmp-") != std::string::npos;
}

void hash_file(Checksum64& c, const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
        throw Error("cannot read model file " + p.string() + ": " + std::strerror(errno));
    c.update_string(p.filename().string());
    c.update_u64(static_cast<uint64_t>(st.st_size));
    c.update_u64(static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                 static_cast<uint64_t>(st.st_mtim.tv_nsec));
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read model file " + p.string() + ": " + std::strerror(errno));
    std::vector<unsigned char> buf(
        std::min<std::size_t>(kIdentityPrefixBytes, static_cast<std::size_t>(st.st_size)));
    std::size_t got = 0;
    while (got < buf.size()) {
        const ssize_t r = ::read(fd, buf.data() + got, buf.size() - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    ::close(fd);
    c.update(buf.data(), got);
}

struct Entry {
    fs::path path;
    int64_t bytes;
    fs::file_time_type used;
};

}  // namespace

ModelIdentity model_identity(const fs::path& model_path) {
    ModelIdentity id;
    std::error_code ec;
    if (fs::is_directory(model_path, ec)) {
        // A Hugging Face folder: every file the loader may read, in name order.
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(model_path, ec)) {
            const std::string ext = e.path().extension().string();
            if (e.is_regular_file() && (ext == ".json" || ext == ".safetensors" || ext == ".model"))
                files.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
        Checksum64 c(1);
        for (const auto& f : files) {
            hash_file(c, f);
            id.file_bytes += fs::file_size(f, ec);
            const auto t = fs::last_write_time(f, ec).time_since_epoch();
            id.mtime_ns = std::max<int64_t>(id.mtime_ns,
                                            std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
        }
        id.content_hash = c.digest();
        return id;
    }
    struct stat st {};
    if (::stat(model_path.c_str(), &st) != 0)
        throw Error("cannot read model file " + model_path.string() + ": " + std::strerror(errno));
    id.file_bytes = static_cast<uint64_t>(st.st_size);
    id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    Checksum64 c(2);
    hash_file(c, model_path);
    id.content_hash = c.digest();
    return id;
}

KvStoreCache::KvStoreCache(fs::path dir, int64_t cap_bytes) : dir_(std::move(dir)), cap_bytes_(cap_bytes) {}

fs::path KvStoreCache::default_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        return fs::path(xdg) / "snapdoc" / "kv";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "snapdoc" / "kv";
    return fs::temp_directory_path() / "snapdoc-kv-cache";
}

bool KvStoreCache::contains(const KvCacheKey& key) const {
    std::error_code ec;
    return fs::is_regular_file(path_for(key), ec);
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
    const auto stale_before = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file(ec)) continue;
        if (is_temporary(e.path())) {
            if (e.last_write_time(ec) < stale_before) remove(e.path());
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
    // A temporary file may be another process writing right now: only stale ones go.
    const auto stale_before = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file(ec)) continue;
        if (is_cache_file(e.path()) || (is_temporary(e.path()) && e.last_write_time(ec) < stale_before))
            remove(e.path());
    }
}

}  // namespace snapdoc
