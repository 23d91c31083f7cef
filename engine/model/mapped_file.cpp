#include "engine/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

constexpr std::size_t kBufferAlignment = 64;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw FormatError("cannot open '" + path.string() + "': " + what);
}

// Closes the descriptor on every path out of open(); the mapping stays valid without it.
struct FdGuard {
    int fd;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, std::strerror(errno));
    FdGuard guard{fd};

    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(path, std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory, not a file");
    if (!S_ISREG(st.st_mode)) fail(path, "it is not a regular file");
    if (st.st_size == 0) fail(path, "the file is empty");

    const auto size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) fail(path, std::string("mmap failed: ") + std::strerror(errno));

    std::shared_ptr<MappedFile> file(new MappedFile());
    file->path_ = path;
    file->data_ = static_cast<const uint8_t*>(p);
    file->size_ = size;
    file->mapped_ = true;
    return file;
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string name, std::string_view bytes) {
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->path_ = std::move(name);
    // Aligned like a page mapping would be, so tensor data keeps its natural alignment.
    auto* buf = static_cast<uint8_t*>(
        ::operator new(bytes.size() + 1, std::align_val_t(kBufferAlignment)));
    if (!bytes.empty()) std::memcpy(buf, bytes.data(), bytes.size());
    file->data_ = buf;
    file->size_ = bytes.size();
    file->mapped_ = false;
    return file;
}

MappedFile::~MappedFile() {
    if (data_ == nullptr) return;
    if (mapped_) {
        ::munmap(const_cast<uint8_t*>(data_), size_);
    } else {
        ::operator delete(const_cast<uint8_t*>(data_), std::align_val_t(kBufferAlignment));
    }
}

}  // namespace snapdoc
