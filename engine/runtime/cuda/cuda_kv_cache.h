// The ragged KV cache in device memory. One allocation each for K, V (f16, [entries, head_dim]) and
// positions (int32); segment (layer, head) owns entries [offset, offset + capacity). Lengths and
// positions are also kept on the host by the KvCache base class (the session logic reads them
// there); the device copy of the positions is what the attention kernels search. Truncate/clear
// only shorten the host lengths: entries past a segment's length are never read on the device.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/kv/kv_cache.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "kernels/types.h"

namespace snapdoc::cuda {

class CudaKvCache : public KvCache {
public:
    explicit CudaKvCache(KvCacheSpec spec);
    std::size_t reserved_bytes() const override;
    // Device bytes a cache with this spec takes (for predicting memory before allocating).
    static int64_t device_bytes(const KvCacheSpec& spec);

    int64_t offset(int layer, int head) const { return offsets_[spec_.segment(layer, head)]; }
    __half* k() const { return k_.as<__half>(); }
    __half* v() const { return v_.as<__half>(); }
    int32_t* pos() const { return pos_.as<int32_t>(); }

    // The kernels' view of one layer with the current (host) lengths.
    kernels::KvLayerView layer_view(int layer) const;
    int max_length(int layer) const;

    // Throws (before anything is written) unless n entries at `positions` can be appended to the
    // segment: room left, positions ascending and after the segment's last.
    void check_append(int layer, int head, const int32_t* positions, int n) const;
    // Host bookkeeping after the device holds the entries (call check_append first).
    void commit_append(int layer, int head, const int32_t* positions, int n);

private:
    DeviceBuffer k_, v_, pos_;
    std::vector<int64_t> offsets_;
};

}  // namespace snapdoc::cuda
