// The CPU implementation of the Backend interface (f32 compute; weights stay in their file dtype
// and are converted on the fly). See backend.h for the contract.
#pragma once

#include <memory>
#include <vector>

#include "engine/kv/kv_cache.h"
#include "engine/runtime/backend.h"

namespace snapdoc::cpu {

// K/V numbers in host memory: one contiguous [capacity, head_dim] array per segment for K and V.
class CpuKvCache : public KvCache {
public:
    explicit CpuKvCache(KvCacheSpec spec);
    std::size_t reserved_bytes() const override;

    float* k(int layer, int head) { return k_[spec_.segment(layer, head)].data(); }
    float* v(int layer, int head) { return v_[spec_.segment(layer, head)].data(); }
    const float* k(int layer, int head) const { return k_[spec_.segment(layer, head)].data(); }
    const float* v(int layer, int head) const { return v_[spec_.segment(layer, head)].data(); }
    // Appends one entry (head_dim values each) at the end of a segment.
    void append(int layer, int head, int32_t position, const float* key, const float* value);

private:
    std::vector<std::vector<float>> k_, v_;
};

}  // namespace snapdoc::cpu
