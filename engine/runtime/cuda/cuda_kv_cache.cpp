#include "engine/runtime/cuda/cuda_kv_cache.h"

#include <algorithm>

#include "engine/common/error.h"

namespace snapdoc::cuda {

int64_t CudaKvCache::device_bytes(const KvCacheSpec& spec) {
    // K and V in f16, plus one int32 position per entry.
    return spec.total_capacity() * (int64_t{spec.head_dim} * 2 * 2 + 4);
}

CudaKvCache::CudaKvCache(KvCacheSpec spec) : KvCache(std::move(spec), /*value_bytes=*/2) {  // __half K and V
    if (spec_.n_heads > kernels::kMaxCacheHeads)
        throw Error("CUDA KV cache: at most " + std::to_string(kernels::kMaxCacheHeads) + " cache heads per layer (got " +
                    std::to_string(spec_.n_heads) + ")");
    offsets_.resize(spec_.capacity.size());
    int64_t total = 0;
    for (std::size_t s = 0; s < spec_.capacity.size(); ++s) {
        offsets_[s] = total;
        total += spec_.capacity[s];
    }
    const std::string what = "the KV cache (" + std::to_string(total) + " entries of head_dim " +
                             std::to_string(spec_.head_dim) + ")";
    require_free(device_bytes(spec_), what);
    const std::size_t kv_bytes = static_cast<std::size_t>(total) * spec_.head_dim * 2;
    k_.ensure(kv_bytes, what);
    v_.ensure(kv_bytes, what);
    pos_.ensure(static_cast<std::size_t>(total) * 4, what);
}

std::size_t CudaKvCache::reserved_bytes() const { return static_cast<std::size_t>(device_bytes(spec_)); }

kernels::KvLayerView CudaKvCache::layer_view(int layer) const {
    kernels::KvLayerView v;
    v.k = k();
    v.v = this->v();
    v.pos = pos();
    v.n_heads = spec_.n_heads;
    v.head_dim = spec_.head_dim;
    for (int h = 0; h < spec_.n_heads; ++h) {
        v.seg.offset[h] = offset(layer, h);
        v.seg.length[h] = length(layer, h);
    }
    return v;
}

int CudaKvCache::max_length(int layer) const {
    int m = 0;
    for (int h = 0; h < spec_.n_heads; ++h) m = std::max(m, length(layer, h));
    return m;
}

void CudaKvCache::check_append(int layer, int head, const int32_t* positions, int n) const {
    if (n < 0) throw Error("KV cache: negative entry count");
    const int len = length(layer, head), cap = capacity(layer, head);
    if (len + n > cap)
        throw Error("KV cache is full (layer " + std::to_string(layer) + ", head " + std::to_string(head) +
                    ", capacity " + std::to_string(cap) + " entries)");
    int32_t last = len > 0 ? this->positions(layer, head).back() : -1;
    for (int i = 0; i < n; ++i) {
        if ((len > 0 || i > 0) && positions[i] <= last)
            throw Error("KV cache: positions must increase within a head (got " + std::to_string(positions[i]) +
                        " after " + std::to_string(last) + ")");
        last = positions[i];
    }
}

void CudaKvCache::commit_append(int layer, int head, const int32_t* positions, int n) {
    for (int i = 0; i < n; ++i) record_append(layer, head, positions[i]);
}

}  // namespace snapdoc::cuda
