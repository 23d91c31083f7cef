#include "engine/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/mapped_regions.h"

namespace snapdoc {

namespace {

constexpr std::size_t kBufferAlignment = 64;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw FormatError("cannot open '" + path.string() + "': " + what);
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    // The guarded open: a FIFO, device or directory is refused without blocking.
    const InputFile in = InputFile::open(path);
    if (in.size() == 0) fail(path, "the file is empty");
    if (in.size() > std::numeric_limits<std::size_t>::max()) fail(path, "it is too large to map");
    const int fd = in.fd();

    const auto size = static_cast<std::size_t>(in.size());
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) fail(path, std::string("mmap failed: ") + std::strerror(errno));

    std::shared_ptr<MappedFile> file(new MappedFile());
    file->path_ = path;
    file->data_ = static_cast<const uint8_t*>(p);
    file->size_ = size;
    file->mapped_ = true;
    register_mapped_region(p, size, "the model file " + path.string());
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
        unregister_mapped_region(data_);
        ::munmap(const_cast<uint8_t*>(data_), size_);
    } else {
        ::operator delete(const_cast<uint8_t*>(data_), std::align_val_t(kBufferAlignment));
    }
}

}  // namespace snapdoc
