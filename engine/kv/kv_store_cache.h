// A folder of K/V cache files (engine/kv/kv_store_file.h), one per (model, tokenizer, document,
// template, system prompt, engine version), named by the key's digest. Least recently used files
// are evicted when the folder exceeds its byte cap; "used" is the file's modification time, set on
// every hit, so several processes sharing the folder (app + CLI) agree without a lock file.
// Default folder: $XDG_CACHE_HOME/snapdoc/kv, else ~/.cache/snapdoc/kv.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/kv/kv_store_file.h"
#include "engine/kv/model_identity.h"

namespace snapdoc {

inline constexpr int64_t kDefaultKvCacheCapBytes = int64_t{4} << 30;

// The memo of whole-file model hashes (engine/kv/model_identity.h) kept in the cache folder.
inline constexpr const char* kModelHashMemoName = "model-hashes.memo";

class KvStoreCache {
public:
    KvStoreCache(std::filesystem::path dir, int64_t cap_bytes = kDefaultKvCacheCapBytes);
    static std::filesystem::path default_dir();
    // model_identity() with the memo in this folder: the whole model is hashed once, later opens
    // of the unchanged file cost a stat.
    ModelIdentity model_identity(const std::filesystem::path& model_path) const;

    const std::filesystem::path& dir() const { return dir_; }
    int64_t cap_bytes() const { return cap_bytes_; }
    void set_cap_bytes(int64_t cap_bytes) { cap_bytes_ = cap_bytes; }

    std::filesystem::path path_for(const KvCacheKey& key) const { return dir_ / key.file_name(); }
    // Whether a regular file (not a link, FIFO or device) is at the key's name.
    bool contains(const KvCacheKey& key) const;
    // Whether anything (a link, dangling or not, included) is at `file`'s name.
    static bool occupied(const std::filesystem::path& file);
    // Removes whatever is at `file`'s name unless it is a regular file, so that the writer's
    // rename puts a regular file there (AtomicFileWriter would write through a link or into a FIFO).
    static void clear_name(const std::filesystem::path& file);
    // Marks a file as used now (it becomes the last to be evicted).
    void touch(const std::filesystem::path& file) const;
    // Creates the folder if needed. Throws Error if it cannot.
    void ensure_dir() const;
    // "" if a file of `bytes` may be written (fits the cap, and the disk keeps some room), else why not.
    std::string room_for(int64_t bytes) const;
    // Deletes least recently used cache files until the folder (cache files + temporaries being
    // written) is within the cap; never `keep`. Temporaries whose writer is gone (the pid in
    // their name names no process) or unwritten for an hour go first.
    void evict(const std::filesystem::path& keep = {}) const;
    void remove(const std::filesystem::path& file) const;
    // Deletes every cache file in the folder (nothing else).
    void clear() const;

    struct Usage {
        int files = 0;
        int64_t bytes = 0;
    };
    Usage usage() const;

private:
    std::filesystem::path dir_;
    int64_t cap_bytes_;
};

}  // namespace snapdoc
