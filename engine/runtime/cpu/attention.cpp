#include "engine/runtime/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/runtime/cpu/dot_kernels.h"

namespace snapdoc::cpu {

namespace {

// One query row of one head: online softmax over the visible entries, one tile at a time.
void attend_row(const float* q, int32_t q_pos, const CacheHeadView& h, int head_dim, float scale, float* out,
                float* acc) {
    const int visible =
        static_cast<int>(std::upper_bound(h.positions, h.positions + h.length, q_pos) - h.positions);
    std::fill(acc, acc + head_dim, 0.0f);
    float running_max = -std::numeric_limits<float>::infinity();
    float denom = 0.0f;
    float scores[kAttentionTile];
    for (int t0 = 0; t0 < visible; t0 += kAttentionTile) {
        const int t1 = std::min(visible, t0 + kAttentionTile);
        float tile_max = -std::numeric_limits<float>::infinity();
        for (int j = t0; j < t1; ++j) {
            float s = dot_f32(q, h.k + static_cast<int64_t>(j) * head_dim, head_dim) * scale;
            scores[j - t0] = s;
            tile_max = std::max(tile_max, s);
        }
        const float new_max = std::max(running_max, tile_max);
        const float correction = std::exp(running_max - new_max);  // exp(-inf) = 0 on the first tile
        denom *= correction;
        for (int d = 0; d < head_dim; ++d) acc[d] *= correction;
        for (int j = t0; j < t1; ++j) {
            const float p = std::exp(scores[j - t0] - new_max);
            denom += p;
            axpy_f32(p, h.v + static_cast<int64_t>(j) * head_dim, acc, head_dim);
        }
        running_max = new_max;
    }
    const float inv = denom > 0.0f ? 1.0f / denom : 0.0f;
    for (int d = 0; d < head_dim; ++d) out[d] = acc[d] * inv;
}

}  // namespace

void attention(const AttentionArgs& a, ThreadPool& pool) {
    const int64_t work = static_cast<int64_t>(a.n) * a.n_heads;
    const int q_stride = a.n_heads * a.head_dim;
    std::vector<std::vector<float>> acc(pool.size(), std::vector<float>(a.head_dim));
    pool.parallel_for(work, 1, [&](int64_t w0, int64_t w1, int thread) {
        for (int64_t w = w0; w < w1; ++w) {
            const int row = static_cast<int>(w / a.n_heads);
            const int head = static_cast<int>(w % a.n_heads);
            const int64_t off = static_cast<int64_t>(row) * q_stride + static_cast<int64_t>(head) * a.head_dim;
            attend_row(a.q + off, a.q_positions[row], a.heads[head / a.group], a.head_dim, a.scale, a.out + off,
                       acc[thread].data());
        }
    });
}

}  // namespace snapdoc::cpu
