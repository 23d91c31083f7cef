#include "tests/cuda/ragged_test_cache.h"

#include <algorithm>
#include <random>

#include "engine/model/dtype.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc::cudatest {

RaggedTestCache::RaggedTestCache(const RaggedCacheShape& s, uint32_t seed) {
    std::mt19937 rng(seed);
    pos.resize(s.cache_heads);
    k.resize(s.cache_heads);
    v.resize(s.cache_heads);
    cache = std::make_unique<cuda::CudaKvCache>(KvCacheSpec::uniform(1, s.cache_heads, s.head_dim, s.group, s.prompt_len));
    for (int h = 0; h < s.cache_heads; ++h) {
        for (int p = 0; p < s.prompt_len; ++p)
            if (!s.ragged || rng() % 3 != 0 || p + 1 == s.prompt_len) pos[h].push_back(p);
        // A head that skips the first positions: early queries of a ragged cache see nothing there.
        if (s.ragged && h == 0 && pos[h].size() > 40) pos[h].erase(pos[h].begin(), pos[h].begin() + 20);
        const std::size_t n = pos[h].size() * s.head_dim;
        k[h] = round_f16(random_floats(n, seed * 31 + h, 1.0f));
        v[h] = round_f16(random_floats(n, seed * 37 + h, 1.0f));
        std::vector<uint16_t> kh(n), vh(n);
        for (std::size_t i = 0; i < n; ++i) {
            kh[i] = f32_to_f16(k[h][i]);
            vh[i] = f32_to_f16(v[h][i]);
        }
        const int64_t off = cache->offset(0, h);
        cuda::check(cudaMemcpy(cache->k() + off * s.head_dim, kh.data(), n * 2, cudaMemcpyHostToDevice), "k");
        cuda::check(cudaMemcpy(cache->v() + off * s.head_dim, vh.data(), n * 2, cudaMemcpyHostToDevice), "v");
        cuda::check(cudaMemcpy(cache->pos() + off, pos[h].data(), pos[h].size() * 4, cudaMemcpyHostToDevice), "pos");
        cache->commit_append(0, h, pos[h].data(), static_cast<int>(pos[h].size()));
        max_len = std::max(max_len, static_cast<int>(pos[h].size()));
    }
}

std::vector<int32_t> last_query_positions(int rows, int prompt_len) {
    std::vector<int32_t> p;
    for (int i = 0; i < rows; ++i) p.push_back(prompt_len - rows + i);
    if (rows > 2) p[0] = 3;
    return p;
}

}  // namespace snapdoc::cudatest
