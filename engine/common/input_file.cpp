#include "engine/common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

// "document 'a.txt'" or just "'a.txt'" when the caller gave no noun.
std::string name_of(const std::string& what, const std::filesystem::path& path) {
    return (what.empty() ? "" : what + " ") + "'" + path.string() + "'";
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory, not a file";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode)) return "a character device, not a regular file";
    if (S_ISBLK(mode)) return "a block device, not a regular file";
    if (S_ISSOCK(mode)) return "a socket, not a regular file";
    return "not a regular file";
}

}  // namespace

InputFile InputFile::open(const std::filesystem::path& path, const std::string& what) {
    InputFile f;
    f.path_ = path;
    f.what_ = what;
    const std::string prefix = "cannot open " + name_of(what, path) + ": ";
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It has no
    // effect on reads of a regular file, the only kind kept.
    f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f.fd_ < 0) {
        const int err = errno;
        throw FormatError(prefix + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(f.fd_, &st) != 0) {
        const int err = errno;
        throw FormatError(prefix + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) throw FormatError(prefix + "it is " + kind_of(st.st_mode));
    f.size_ = static_cast<uint64_t>(st.st_size);
    return f;
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)), what_(std::move(other.what_)), fd_(other.fd_), size_(other.size_) {
    other.fd_ = -1;
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_all(std::size_t max_bytes) {
    if (size_ > max_bytes) {
        throw FormatError(name_of(what_, path_) + " is " + std::to_string(size_) + " bytes, more than the " +
                          std::to_string(max_bytes) + " allowed for it");
    }
    std::string data(static_cast<std::size_t>(size_), '\0');
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::read(fd_, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            throw FormatError("cannot read " + name_of(what_, path_) + ": " + std::strerror(err));
        }
        if (n == 0) {
            throw FormatError("cannot read " + name_of(what_, path_) + ": it shrank from " +
                              std::to_string(size_) + " to " + std::to_string(done) +
                              " bytes while being read");
        }
        done += static_cast<std::size_t>(n);
    }
    return data;
}

std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& what) {
    return InputFile::open(path, what).read_all(max_bytes);
}

}  // namespace snapdoc
