// Writes a file so that readers only ever see the old file or the complete new one: data goes to a
// temporary file in the same directory, which is flushed, synced and renamed over the target on
// commit(). Any failure (full disk, permission) throws Error and removes the temporary file, so no
// partial file is ever left behind.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>

namespace snapdoc {

class AtomicFileWriter {
public:
    explicit AtomicFileWriter(std::filesystem::path target);
    ~AtomicFileWriter();  // removes the temporary file unless committed
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(const void* data, std::size_t n);
    void write(const std::string& s) { write(s.data(), s.size()); }
    // Pads with zero bytes up to a multiple of `alignment` from the start of the file.
    void pad_to(std::size_t alignment);
    std::size_t bytes_written() const { return written_; }
    void commit();

private:
    [[noreturn]] void fail(const std::string& what);

    std::filesystem::path target_;
    std::filesystem::path temp_;
    std::FILE* file_ = nullptr;
    std::size_t written_ = 0;
    bool committed_ = false;
};

}  // namespace snapdoc
