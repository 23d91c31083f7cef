// The one-layer ragged device K/V cache that the attention kernel tests share (kernels/attention.h,
// kernels/flash_prefill.h, the window scores), with host copies of exactly what it holds, and the
// query positions those tests ask about. One builder, so the CUDA-core and tensor-core suites test
// the same caches.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/runtime/cuda/cuda_kv_cache.h"

namespace snapdoc::cudatest {

struct RaggedCacheShape {
    int head_dim, group, cache_heads, prompt_len;
    bool ragged;  // every head drops about a third of the positions, head 0 its first 20 entries
};

// K/V are random and rounded through f16 (what the device stores), so CPU references read the same numbers.
struct RaggedTestCache {
    std::unique_ptr<cuda::CudaKvCache> cache;
    std::vector<std::vector<float>> k, v;   // [head][len * hd]
    std::vector<std::vector<int32_t>> pos;  // [head][len]
    int max_len = 0;                        // longest head

    RaggedTestCache(const RaggedCacheShape& s, uint32_t seed);
};

// The last `rows` positions of the prompt, with position 3 for the first row when rows > 2
// (a few keys; none in head 0 of a ragged cache).
std::vector<int32_t> last_query_positions(int rows, int prompt_len);

}  // namespace snapdoc::cudatest
