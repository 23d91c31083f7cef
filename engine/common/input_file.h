// The one guarded way the program opens a file it reads (models, side files, documents): only a
// regular file is accepted, its size is known before a byte is read, and reads are bounded by it.
// FIFOs, devices (a symlink to /dev/zero), sockets and directories get a clear error instead of a
// blocking open() or an endless read: the open uses O_NONBLOCK, so a FIFO without a writer returns
// at once and fstat() then refuses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace snapdoc {

// An open descriptor of a regular file and its size at open time; closes on destruction.
class InputFile {
public:
    // `what` names the file in messages ("document", "model"; may be empty); the path is always added. Throws
    // FormatError for a missing file, a permission problem (errno text), a directory or any other
    // non-regular file.
    static InputFile open(const std::filesystem::path& path, const std::string& what = "");

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&&) = delete;
    InputFile(const InputFile&) = delete;
    ~InputFile();

    int fd() const { return fd_; }
    uint64_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

    // The whole file, refusing one larger than `max_bytes` before reading. A file that shrinks
    // while being read is reported; one that grows is read up to its size at open time.
    std::string read_all(std::size_t max_bytes);

private:
    InputFile() = default;
    std::filesystem::path path_;
    std::string what_;
    int fd_ = -1;
    uint64_t size_ = 0;
};

// InputFile::open(path, what).read_all(max_bytes) in one call.
std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& what = "");

}  // namespace snapdoc
