#include "engine/common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

std::string with_errno(const std::string& what, int err) {
    if (err == EFBIG) return what + ": " + std::strerror(err) + " (past the process's file-size limit, ulimit -f)";
    return err ? what + ": " + std::strerror(err) : what;
}

// /dev/stdout, /dev/fd/N, /proc/self/fd/N: the caller's own descriptors, which may point at a
// file the shell opened; replacing that file by rename would lose the output, so they are
// written in place.
bool is_special_path(const std::filesystem::path& p) {
    const std::string s = p.lexically_normal().string();
    return s == "/dev/stdout" || s == "/dev/stderr" || s.rfind("/dev/fd/", 0) == 0 ||
           s.rfind("/proc/", 0) == 0;
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
    const std::string name = target_.string();
    if (is_special_path(target_)) {
        open_direct();
        return;
    }

    struct stat lst {};
    if (::lstat(target_.c_str(), &lst) != 0) {
        const int err = errno;
        if (err != ENOENT) throw Error(with_errno("cannot write " + name, err));
        open_temporary(target_, false, 0);
        return;
    }
    std::filesystem::path resolved = target_;
    if (S_ISLNK(lst.st_mode)) {
        std::error_code ec;
        resolved = std::filesystem::canonical(target_, ec);
        if (ec)
            throw Error("cannot write " + name + ": it is a symlink whose target cannot be resolved (" +
                        ec.message() + ")");
    }
    struct stat st {};
    if (::stat(resolved.c_str(), &st) != 0) {
        const int err = errno;
        throw Error(with_errno("cannot write " + name, err));
    }
    if (S_ISREG(st.st_mode)) {
        open_temporary(resolved, true, st.st_mode & 07777);
        return;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        open_direct();
        return;
    }
    const char* kind = S_ISDIR(st.st_mode)   ? "a directory"
                       : S_ISBLK(st.st_mode) ? "a block device"
                                             : "not a regular file";
    throw Error("cannot write " + name + ": it is " + kind + " (give a file path)");
}

void AtomicFileWriter::open_temporary(const std::filesystem::path& final_target, bool keep_mode,
                                      unsigned mode) {
    final_ = final_target;
    std::random_device rd;
    const auto dir = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
    // The writer's pid in the name lets a cache folder's housekeeping tell an interrupted writer's
    // leftover (its process is gone) from a file being written right now (kv_store_cache.cpp).
    temp_ = dir / ("." + final_.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                   std::to_string(rd()));
    // O_EXCL: never write through something that appeared at the temporary name.
    const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int err = errno;
        temp_.clear();
        throw Error(with_errno(
            "cannot create a temporary file in " + dir.string() + " for " + target_.string(), err));
    }
    if (keep_mode && ::fchmod(fd, mode) != 0) {
        const int err = errno;
        ::close(fd);
        fail("cannot keep the permissions of the existing file", err);
    }
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
        const int err = errno;
        ::close(fd);
        fail("cannot open the temporary file", err);
    }
}

void AtomicFileWriter::open_direct() {
    // O_NONBLOCK for the open only: a FIFO without a reader fails with ENXIO instead of waiting.
    const int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        if (err == ENXIO)
            throw Error("cannot write " + target_.string() + ": no process is reading this FIFO");
        throw Error(with_errno("cannot write " + target_.string(), err));
    }
    struct stat st {};
    const int flags = ::fcntl(fd, F_GETFL);
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) || flags < 0 ||
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        ::close(fd);
        throw Error(with_errno("cannot write " + target_.string(), err));
    }
    // A regular file reached through /dev/stdout or /proc/self/fd: append, as the shell's `>` does.
    if (S_ISREG(st.st_mode)) ::fcntl(fd, F_SETFL, (flags & ~O_NONBLOCK) | O_APPEND);
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
        const int err = errno;
        ::close(fd);
        throw Error(with_errno("cannot write " + target_.string(), err));
    }
}

AtomicFileWriter::~AtomicFileWriter() {
    if (file_) std::fclose(file_);
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFileWriter::fail(const std::string& what, int err) {
    if (file_) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
    throw Error(with_errno("cannot write " + target_.string() + ": " + what, err));
}

void AtomicFileWriter::write(const void* data, std::size_t n) {
    if (!file_) throw Error("write after commit or failure: " + target_.string());
    if (n && std::fwrite(data, 1, n, file_) != n) fail("write failed", errno);
    written_ += n;
}

void AtomicFileWriter::pad_to(std::size_t alignment) {
    const std::size_t rem = written_ % alignment;
    if (rem == 0) return;
    std::vector<char> zeros(alignment - rem, 0);
    write(zeros.data(), zeros.size());
}

void AtomicFileWriter::commit() {
    if (!file_) throw Error("commit after failure: " + target_.string());
    if (std::fflush(file_) != 0) fail("flush failed", errno);
    // Devices and FIFOs have nothing to sync (fsync reports EINVAL there).
    if (!temp_.empty() && ::fsync(fileno(file_)) != 0) fail("fsync failed", errno);
    const int rc = std::fclose(file_);
    const int close_err = errno;
    file_ = nullptr;
    if (rc != 0) fail("close failed", close_err);
    if (!temp_.empty() && ::rename(temp_.c_str(), final_.c_str()) != 0) {
        const int err = errno;
        fail("cannot rename the temporary file over " + final_.string(), err);
    }
    committed_ = true;
}

}  // namespace snapdoc
