#include "engine/runtime/cpu/attention_window_scores.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/runtime/cpu/attention_tile.h"
#include "engine/runtime/cpu/attention_vec.h"

namespace snapdoc::cpu {

void window_scores(const WindowScoreArgs& a, ThreadPool& pool) {
    const int hd = a.head_dim, group = a.group, cache_heads = a.n_heads / group, m_rows = a.n_window * group;
    std::fill(a.out, a.out + static_cast<int64_t>(a.n_heads) * a.n_prefix, 0.0f);
    if (a.n_window <= 0 || a.n_prefix <= 0) return;

    // Pass 1: each window query's normaliser, from the attention kernel itself.
    std::vector<float> lse(static_cast<std::size_t>(a.n_window) * a.n_heads);
    AttentionArgs att;
    att.q = a.q;
    att.q_positions = a.q_positions;
    att.n = a.n_window;
    att.n_heads = a.n_heads;
    att.head_dim = hd;
    att.group = group;
    att.heads = a.heads;
    att.scale = a.scale;
    att.sliding_window = a.sliding_window;
    att.lse = lse.data();
    attention(att, pool);

    // The window's queries per cache head, packed once: row m is window row m / group.
    std::vector<float> qp(static_cast<std::size_t>(cache_heads) * m_rows * hd);
    const int64_t q_stride = static_cast<int64_t>(a.n_heads) * hd;
    for (int c = 0; c < cache_heads; ++c)
        pack_group_queries(a.q, q_stride, 0, a.n_window, c, group, hd,
                           qp.data() + static_cast<int64_t>(c) * m_rows * hd);

    // Pass 2: one task per (cache head, key tile); a task owns its columns of the group's rows.
    const int32_t max_pos = *std::max_element(a.q_positions, a.q_positions + a.n_window);
    std::vector<int> tiles(cache_heads);  // tiles of entries [0, min(n_prefix, visible)) per cache head
    for (int c = 0; c < cache_heads; ++c) {
        const int end = std::min(a.n_prefix, visible_span(a.heads[c], max_pos, max_pos, 0).end);
        tiles[c] = (end + kAttentionTile - 1) / kAttentionTile;
    }
    const int max_tiles = *std::max_element(tiles.begin(), tiles.end());
    pool.parallel_for(static_cast<int64_t>(cache_heads) * max_tiles, 1, [&](int64_t w0, int64_t w1, int) {
        std::vector<float> s(static_cast<std::size_t>(m_rows) * kAttentionTile), k_tile;
        for (int64_t w = w0; w < w1; ++w) {
            const int c = static_cast<int>(w % cache_heads), t = static_cast<int>(w / cache_heads);
            if (t >= tiles[c]) continue;
            const CacheHeadView& h = a.heads[c];
            const int t0 = t * kAttentionTile,
                      kt = std::min({kAttentionTile, h.length - t0, a.n_prefix - t0});
            score_tile(qp.data() + static_cast<int64_t>(c) * m_rows * hd, m_rows, hd,
                       tile_rows(h.k, h.k16, t0, kt, hd, k_tile), kt, a.scale, s.data());
            for (int m = 0; m < m_rows; ++m) {
                const int row = m / group, head = c * group + m % group;
                const TileRange r =
                    visible_in_tile(h.positions + t0, kt, a.q_positions[row], a.sliding_window);
                if (r.lo >= r.hi) continue;
                float* sc = s.data() + static_cast<int64_t>(m) * kAttentionTile;
                exp_shift_sum(sc + r.lo, r.hi - r.lo, lse[static_cast<int64_t>(row) * a.n_heads + head]);
                float* dst = a.out + static_cast<int64_t>(head) * a.n_prefix + t0;
                for (int j = r.lo; j < r.hi; ++j) dst[j] += sc[j];
            }
        }
    });
}

}  // namespace snapdoc::cpu
