// The download engine's files beside a model file: the JSON sidecar that lets a .part resume in a
// new process, the flock()ed lock file that keeps two processes off one file, and the free-space
// probe. Internal to app/hub.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/hub/hub_tree.h"

namespace snapdoc::hub {

struct Sidecar {
    std::string url;
    std::string repo;
    std::string revision;
    std::string file;
    int64_t size_bytes = -1;
    std::string sha256;      // expected (from the tree); "" when the hub gave none
    std::string etag;        // X-Linked-Etag (else ETag) of the first response
    std::string bad_sha256;  // set after a mismatch: the .part's hash, kept for diagnosis
    // Every file of the download this file belongs to (one file, or a whole shard set), so that a
    // download paused by quitting can be listed and resumed after a restart without the hub.
    std::vector<RemoteFile> set;
};
// "" when `path` is absent or a regular file; else why it may not be used, in words. The .part,
// sidecar and lock beside a model are only ever regular files the engine made: a symbolic link
// planted there (by another local user) would make it write, truncate or read a file elsewhere.
std::string not_a_plain_file(const std::filesystem::path& path);

// nullopt when absent or unreadable (then the .part's origin is unknown and it is discarded).
std::optional<Sidecar> read_sidecar(const std::filesystem::path& path);
void write_sidecar(const std::filesystem::path& path, const Sidecar& s);  // atomic (AtomicFileWriter)

// An exclusive flock() on `path` (created if needed) holding our pid. The lock dies with the
// process, so a killed download never leaves a stale lock.
class FileLock {
public:
    // Tries once; on contention returns nullopt and sets *holder_pid (0 if unreadable).
    static std::optional<FileLock> try_acquire(const std::filesystem::path& path, long* holder_pid);
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    ~FileLock();  // releases (the file stays unless release_and_remove was called)
    void release_and_remove();

private:
    FileLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
    std::filesystem::path path_;
    int fd_ = -1;
};

// statvfs(dir): bytes available to an unprivileged user. -1 when the call fails.
int64_t statvfs_free_bytes(const std::filesystem::path& dir);

}  // namespace snapdoc::hub
