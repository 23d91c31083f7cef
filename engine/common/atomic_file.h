// The one output-file writer (--json, --csv, --logits-out, PNG heatmaps, GGUF files, exports).
//
// The rule, by what the target path names once symlinks are followed:
// - nothing yet, or a regular file: the data goes to a temporary file next to the (resolved)
//   target, which is flushed, synced and renamed over it on commit(), so readers only ever see
//   the old file or the complete new one. The temporary is ".<name>.tmp-<pid>-<random>". An existing file keeps its permission bits (a 0600 file
//   stays 0600). Any failure (full disk, permission) throws Error and removes the temporary file.
// - a symlink: followed to its final target, which is replaced as above; the link itself stays.
//   A dangling link is refused (it is more likely a mistake than a request to create its target).
// - a FIFO or a character device (/dev/stdout on a pipe or terminal, /dev/null, /dev/full), and
//   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/... whatever they point at (a file the shell opened
//   for `>` must not be replaced by rename; it is appended to): written directly, in place, not
//   atomically. A FIFO without a reader is an error at once, not a hang; a device that refuses the
//   data (/dev/full) is an error naming the device.
// - a directory, block device or socket: refused with a message, before anything is written.
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
    // `err` is the errno of the failing call, captured right after it (0: none).
    [[noreturn]] void fail(const std::string& what, int err);
    void open_direct();
    void open_temporary(const std::filesystem::path& final_target, bool keep_mode, unsigned mode);

    std::filesystem::path target_;  // as given, for messages
    std::filesystem::path final_;   // where the rename goes (the symlink's target)
    std::filesystem::path temp_;    // empty when writing directly
    std::FILE* file_ = nullptr;
    std::size_t written_ = 0;
    bool committed_ = false;
};

}  // namespace snapdoc
