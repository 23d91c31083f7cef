// A whole file mapped read-only into memory. Weight tensors are views into the mapping, so a model
// is never copied into RAM by the loader; the OS pages it in on first touch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace snapdoc {

class MappedFile {
public:
    // Maps `path`. Throws FormatError naming the file for a missing file, a directory, a permission
    // problem (with the errno text) or an empty file.
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);

    // An in-memory "file" (a copy of `bytes` in 64-byte aligned storage) for fuzzers and tests that
    // build files in memory; `name` only appears in messages. Empty input is allowed here.
    static std::shared_ptr<const MappedFile> from_bytes(std::string name, std::string_view bytes);

    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    const uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    MappedFile() = default;

    std::filesystem::path path_;
    const uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;  // true: munmap on destruction; false: owned heap buffer
};

}  // namespace snapdoc
