// What identifies a model file (or a Hugging Face folder's files) in a K/V cache key: its size and
// a hash of its whole content, so any rewrite of any byte is a different model, whatever its mtime
// says (`touch -r`, `cp -p`, `rsync -t` and tar keep the mtime of a changed file).
//
// Hashing a multi-GB file costs a full read (measured in bench/model_hash_bench.cpp and
// docs/RESULTS.md), so it is done once per file and remembered in a small memo file next to the
// cache files, keyed by the file's (device, inode, size, mtime, ctime). A memo hit costs one stat.
// The ctime is what makes the memo safe: the kernel sets it to "now" on every write to the file
// and on every metadata change (including `touch -r` restoring the mtime), and it cannot be set
// back by an ordinary user, so a file whose five values match has not been written since it was
// hashed. (Editing the file system directly, or changing the clock back between two writes within
// one timestamp tick, can fool it; neither is a thing a careless or hostile user does to a file.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace snapdoc {

// The model file as the cache knows it. Two models are the same iff these are.
struct ModelIdentity {
    uint64_t file_bytes = 0;    // total over the files
    uint64_t content_hash = 0;  // Checksum64 of every byte of every file (and their names, in order)
    bool operator==(const ModelIdentity&) const = default;
};

// What stat says about a file: unchanged values mean an unchanged file (see above).
struct FileStamp {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const FileStamp&) const = default;
};

// The remembered whole-file hashes: a text file of "device inode size mtime_ns ctime_ns hash"
// lines, newest last, at most kMaxEntries. Several processes may share it: it is rewritten
// atomically (temporary + rename); a lost race loses an entry, which is hashed again next time.
// An unreadable or malformed memo is treated as empty; one that cannot be written is a no-op.
class ModelHashMemo {
public:
    static constexpr std::size_t kMaxEntries = 256;
    explicit ModelHashMemo(std::filesystem::path file);  // empty path: remembers nothing
    std::optional<uint64_t> find(const FileStamp& stamp) const;
    void remember(const FileStamp& stamp, uint64_t hash);
    // Writes the memo if remember() changed it (best effort: returns false on failure).
    bool save() const;

private:
    struct Entry {
        FileStamp stamp;
        uint64_t hash;
    };
    std::filesystem::path file_;
    std::vector<Entry> entries_;
    bool changed_ = false;
};

FileStamp file_stamp(const std::filesystem::path& file);  // throws Error when it cannot stat

// Checksum64 of every byte of a regular file (read in large pieces; no mapping, so a file
// truncated meanwhile is an Error, not SIGBUS). Throws Error on a read error or a non-regular file.
uint64_t hash_whole_file(const std::filesystem::path& file);

// The identity of a .gguf file or of a Hugging Face folder (every *.json, *.safetensors and *.model
// in it, in name order). With a memo file, a file whose stamp is remembered is not read again.
ModelIdentity model_identity(const std::filesystem::path& model_path,
                             const std::filesystem::path& memo_file = {});

}  // namespace snapdoc
