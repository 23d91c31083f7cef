// The document's full (uncompressed) K/V for every layer, kept on the host so a new question can be
// answered by re-selecting from it instead of re-reading the document ("re-snap"). K and V are
// stored as IEEE half (f16): half the memory of f32, and the backends compute in f32, so rows are
// converted on the way in (store_rows) and out (load_rows, gather_rows). When the store would
// exceed the RAM cap it lives in an unlinked temporary file mapped into memory, so the kernel can
// page it out and nothing is left on disk if the process dies. It can also adopt a read-only
// mapping of an on-disk K/V cache file (engine/kv/kv_store_file.h), so a reopened document is
// used in place without a copy.
//
// Layout: one segment per (layer, KV head, K or V), each [tokens, head_dim] halves, segments in
// the order (layer, head, which) — the cache file stores exactly this blob.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace snapdoc {

class FullKvStore {
public:
    // Room for `tokens` entries per (layer, KV head). Throws Error when neither RAM (within the cap)
    // nor the spill directory can hold it.
    FullKvStore(int n_layers, int n_kv_heads, int head_dim, int tokens, int64_t ram_cap_bytes,
                const std::filesystem::path& spill_dir);
    // Adopts `length` bytes mapped at `mapping` (munmap'd by the destructor); the store's data start
    // `data_offset` bytes into it and must be exactly bytes_for(...) long. The store is read-only.
    static std::unique_ptr<FullKvStore> adopt_mapping(int n_layers, int n_kv_heads, int head_dim, int tokens,
                                                      void* mapping, std::size_t length,
                                                      std::size_t data_offset);
    static int64_t bytes_for(int n_layers, int n_kv_heads, int head_dim, int tokens);
    ~FullKvStore();
    FullKvStore(const FullKvStore&) = delete;
    FullKvStore& operator=(const FullKvStore&) = delete;

    // The raw f16 rows of one segment ([tokens, head_dim]).
    const uint16_t* k(int layer, int head) const { return base(layer, head, 0); }
    const uint16_t* v(int layer, int head) const { return base(layer, head, 1); }
    // All segments, contiguous (bytes() long), for the cache file writer.
    const void* data() const { return data_; }
    // The same for filling a fresh (not adopted) store from a cache file.
    void* mutable_data() { return mapping_ ? nullptr : data_; }

    // Rounds rows [first, first + n) of (layer, head) from f32 to f16 ([n, head_dim] each).
    void store_rows(int layer, int head, int first, int n, const float* k, const float* v);
    // Converts rows [first, first + n) back to f32.
    void load_rows(int layer, int head, int first, int n, float* k, float* v) const;
    // Copies rows [0, n) of every segment from `src` (same layers, heads, head_dim) as they are (f16,
    // no rounding): a document that starts with another's tokens takes over their K/V.
    void copy_leading_rows(const FullKvStore& src, int n);
    // Converts the rows at `positions[0..n)` to f32, packed in that order.
    void gather_rows(int layer, int head, const int32_t* positions, int n, float* k, float* v) const;

    int n_layers() const { return n_layers_; }
    int n_kv_heads() const { return n_kv_heads_; }
    int head_dim() const { return head_dim_; }
    int tokens() const { return tokens_; }
    int64_t bytes() const { return bytes_; }
    bool file_backed() const { return file_backed_; }
    bool mapped_from_cache() const { return mapping_ != nullptr; }

private:
    FullKvStore(int n_layers, int n_kv_heads, int head_dim, int tokens);
    uint16_t* base(int layer, int head, int which) const;

    int n_layers_, n_kv_heads_, head_dim_, tokens_;
    int64_t bytes_ = 0;
    bool file_backed_ = false;
    uint16_t* data_ = nullptr;
    void* mapping_ = nullptr;  // an adopted cache-file mapping (read-only)
    std::size_t mapping_length_ = 0;
};

}  // namespace snapdoc
