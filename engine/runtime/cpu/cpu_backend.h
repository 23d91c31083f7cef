// The CPU implementation of the Backend interface (f32 compute; weights stay in their file dtype
// and are converted on the fly). See backend.h for the contract.
#pragma once

#include <memory>
#include <vector>

#include "engine/kv/kv_cache.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu {

// K/V numbers in host memory: one contiguous [capacity, head_dim] array per segment for K and V,
// in f32 or (BackendOptions::kv_f16) in f16, rounded once as each entry is stored: half the memory,
// and half the bytes decode reads per token at long contexts, where the cache outweighs the model.
class CpuKvCache : public KvCache {
public:
    CpuKvCache(KvCacheSpec spec, bool f16);
    std::size_t reserved_bytes() const override;

    // What the attention kernels read: the segment's entries and positions.
    CacheHeadView view(int layer, int head) const;
    // Appends one entry (head_dim values each) at the end of a segment.
    void append(int layer, int head, int32_t position, const float* key, const float* value);
    // Entries [first, first + n) of a segment as f32.
    void read(int layer, int head, int first, int n, float* key, float* value) const;

private:
    bool f16_;
    std::vector<std::vector<float>> k_, v_;         // f32 storage (empty segments when f16)
    std::vector<std::vector<uint16_t>> k16_, v16_;  // f16 storage (empty segments when f32)
};

}  // namespace snapdoc::cpu
