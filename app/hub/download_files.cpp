#include "app/hub/download_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace fs = std::filesystem;

namespace snapdoc::hub {

std::string not_a_plain_file(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? "" : "cannot inspect '" + path.string() + "': " + std::strerror(errno);
    if (S_ISLNK(st.st_mode))
        return "'" + path.string() + "' is a symbolic link; the download refuses to follow it (remove it and retry)";
    if (!S_ISREG(st.st_mode)) return "'" + path.string() + "' is not a regular file (remove it and retry)";
    return "";
}

std::optional<Sidecar> read_sidecar(const fs::path& path) {
    if (!not_a_plain_file(path).empty()) return std::nullopt;  // never read through a link
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    // A sidecar is ours and small; anything unexpected means "origin unknown", never a crash.
    const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (!j.is_object()) return std::nullopt;
    Sidecar s;
    auto str = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
    };
    s.url = str("url");
    s.repo = str("repo");
    s.revision = str("revision");
    s.file = str("file");
    s.sha256 = str("sha256");
    s.etag = str("etag");
    s.bad_sha256 = str("bad_sha256");
    if (j.contains("size") && j["size"].is_number_integer()) s.size_bytes = j["size"].get<int64_t>();
    if (j.contains("set") && j["set"].is_array())
        for (const auto& f : j["set"]) {
            if (!f.is_object() || !f.contains("path") || !f["path"].is_string()) return std::nullopt;
            RemoteFile r;
            r.path = f["path"].get<std::string>();
            if (f.contains("size") && f["size"].is_number_integer()) r.size_bytes = f["size"].get<int64_t>();
            if (f.contains("sha256") && f["sha256"].is_string()) r.sha256 = f["sha256"].get<std::string>();
            s.set.push_back(std::move(r));
        }
    return s;
}

void write_sidecar(const fs::path& path, const Sidecar& s) {
    nlohmann::json j = {{"version", 1},           {"url", s.url},   {"repo", s.repo},
                        {"revision", s.revision}, {"file", s.file}, {"size", s.size_bytes},
                        {"sha256", s.sha256},     {"etag", s.etag}};
    if (!s.bad_sha256.empty()) j["bad_sha256"] = s.bad_sha256;
    if (!s.set.empty()) {
        auto& set = j["set"] = nlohmann::json::array();
        for (const RemoteFile& f : s.set) set.push_back({{"path", f.path}, {"size", f.size_bytes}, {"sha256", f.sha256}});
    }
    // AtomicFileWriter writes a link's target in place of the link; a sidecar is never a link.
    if (std::string why = not_a_plain_file(path); !why.empty()) throw Error(why);
    AtomicFileWriter w(path);
    w.write(j.dump(2) + "\n");
    w.commit();
}

std::optional<FileLock> FileLock::try_acquire(const fs::path& path, long* holder_pid) {
    // The holder removes the lock file when it finishes; a process that opened the old file before
    // that holds a lock on an unlinked inode, so after flock() the path must still name our inode.
    for (int tries = 0; tries < 16; ++tries) {
        // O_NOFOLLOW: a link at the lock's name would have us truncate and write its target.
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
            throw Error("cannot create the lock file '" + path.string() + "': " +
                        (errno == ELOOP ? std::string("it is a symbolic link (remove it and retry)")
                                        : std::string(std::strerror(errno))));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char buf[32] = {};
            const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
            if (holder_pid) *holder_pid = n > 0 ? std::atol(buf) : 0;
            ::close(fd);
            return std::nullopt;
        }
        struct stat by_fd {
        }, by_path{};
        if (::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_path) == 0 &&
            by_fd.st_ino == by_path.st_ino && by_fd.st_dev == by_path.st_dev) {
            const std::string pid = std::to_string(::getpid()) + "\n";
            if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
                // The pid is only for the message another process prints; the lock still holds.
            }
            return FileLock(path, fd);
        }
        ::close(fd);  // lost a race with the previous holder's unlink; try the new file
    }
    throw Error("cannot take the lock '" + path.string() + "': it keeps being replaced");
}

FileLock::FileLock(FileLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
    other.fd_ = -1;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        path_ = std::move(other.path_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);
}

void FileLock::release_and_remove() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());  // while still holding it (see try_acquire)
    ::close(fd_);
    fd_ = -1;
}

int64_t statvfs_free_bytes(const fs::path& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
}

}  // namespace snapdoc::hub
