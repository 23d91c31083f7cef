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

namespace snapdoc {

inline constexpr int64_t kDefaultKvCacheCapBytes = int64_t{4} << 30;

// Size, modification time and a hash of the first bytes (GGUF header + metadata; for a Hugging Face
// folder: config.json, tokenizer files and each safetensors header) of a model path.
ModelIdentity model_identity(const std::filesystem::path& model_path);

class KvStoreCache {
public:
    KvStoreCache(std::filesystem::path dir, int64_t cap_bytes = kDefaultKvCacheCapBytes);
    static std::filesystem::path default_dir();

    const std::filesystem::path& dir() const { return dir_; }
    int64_t cap_bytes() const { return cap_bytes_; }
    void set_cap_bytes(int64_t cap_bytes) { cap_bytes_ = cap_bytes; }

    std::filesystem::path path_for(const KvCacheKey& key) const { return dir_ / key.file_name(); }
    bool contains(const KvCacheKey& key) const;
    // Marks a file as used now (it becomes the last to be evicted).
    void touch(const std::filesystem::path& file) const;
    // Creates the folder if needed. Throws Error if it cannot.
    void ensure_dir() const;
    // "" if a file of `bytes` may be written (fits the cap, and the disk keeps some room), else why not.
    std::string room_for(int64_t bytes) const;
    // Deletes least recently used cache files until the folder is within the cap; never `keep`.
    // Leftover temporary files of interrupted writers older than an hour go too.
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
