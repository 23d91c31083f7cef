// The attention KV cache, shaped for SnapKV from the start: for every (layer, cache head) there is
// a separate segment with its own length and capacity, so a compressed cache can keep a different
// number of positions per head ("ragged") and still append generated tokens in place.
//
// A "cache head" is a KV head (kv-head mode / an uncompressed cache) or a query head (query-head
// mode, where each query head keeps its own set). Query head q reads cache head q / group, with
// group = n_query_heads / n_cache_heads.
//
// This base class holds the host-side bookkeeping (lengths, true token positions of the stored
// entries). Where the K/V numbers live is up to the backend that created the cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snapdoc {

// Bytes of one stored K or V number in the attention cache by default: f16 on the CPU backend
// (BackendOptions::kv_f16, as llama.cpp's cache) and on the CUDA one. Memory estimates made before
// a cache exists use it; the CPU's exact --kv-f32 cache takes twice this.
inline constexpr int64_t kKvCacheValueBytes = 2;

struct KvCacheSpec {
    int n_layers = 0;
    int n_heads = 0;   // cache heads per layer
    int head_dim = 0;
    int group = 1;     // query heads per cache head
    // capacity[layer * n_heads + head]: entries the segment can hold without reallocation.
    std::vector<int> capacity;

    // Every segment gets the same capacity (an uncompressed cache for `max_tokens` tokens).
    static KvCacheSpec uniform(int n_layers, int n_heads, int head_dim, int group, int max_tokens);
    int segment(int layer, int head) const { return layer * n_heads + head; }
    int64_t total_capacity() const;
};

class KvCache {
public:
    // value_bytes: bytes of one stored K or V number as the backend holds it (2: f16, 4: f32).
    explicit KvCache(KvCacheSpec spec, int value_bytes = static_cast<int>(kKvCacheValueBytes));
    virtual ~KvCache();
    KvCache(const KvCache&) = delete;
    KvCache& operator=(const KvCache&) = delete;

    const KvCacheSpec& spec() const { return spec_; }
    int length(int layer, int head) const { return static_cast<int>(positions_[spec_.segment(layer, head)].size()); }
    int capacity(int layer, int head) const { return spec_.capacity[spec_.segment(layer, head)]; }
    // True token positions of the stored entries, ascending.
    const std::vector<int32_t>& positions(int layer, int head) const { return positions_[spec_.segment(layer, head)]; }
    // Number of stored entries across all segments.
    int64_t total_entries() const;
    // Bytes of K and V storage actually reserved (capacity), as the backend holds them.
    virtual std::size_t reserved_bytes() const = 0;
    // Bytes of K and V for the stored entries, in the number type the backend keeps.
    std::size_t used_bytes() const;
    // Empties every segment (capacity is kept).
    virtual void clear();
    // Drops every entry whose position is >= first_dropped_position in all segments (e.g. to roll
    // back a conversation turn or forget a question). Capacity is kept.
    virtual void truncate(int32_t first_dropped_position);

    // Process-wide accounting of K/V storage held by live caches (capacity × head_dim × K and V ×
    // value bytes), so tests and benches can check what is resident at once (e.g. layer-major prefill).
    static int64_t live_bytes();
    static int64_t peak_live_bytes();
    static void reset_peak_live_bytes();

protected:
    // Backends call this after writing entries so bookkeeping stays in step with the data.
    void record_append(int layer, int head, int32_t position);
    std::vector<int32_t>& mutable_positions(int layer, int head) { return positions_[spec_.segment(layer, head)]; }

    KvCacheSpec spec_;
    int value_bytes_;
    std::vector<std::vector<int32_t>> positions_;
};

}  // namespace snapdoc
