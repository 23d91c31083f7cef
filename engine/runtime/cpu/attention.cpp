#include "engine/runtime/cpu/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/runtime/cpu/attention_decode.h"
#include "engine/runtime/cpu/attention_tile.h"
#include "engine/runtime/cpu/attention_vec.h"

namespace snapdoc::cpu {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One unit of work: rows [r0, r0 + rows) of the query heads of cache head c, over keys [first, end).
struct Block {
    int c = 0, r0 = 0, rows = 0;
    KeySpan keys;
    int64_t cost = 0;  // score entries computed: rows · group · keys
};

// Per-thread buffers, kept between calls (the pool's threads live as long as the backend, and
// decode calls this dozens of times per token).
struct Scratch {
    std::vector<float> q, s, acc, mx, sum;
    std::vector<float> k_tile, v_tile;  // an f16 cache's tile in f32
    std::vector<TileRange> seen;        // per query vector: the columns of the tile it sees
};

// Flash-attention over one block: for each key tile, S = scale·Q·Kᵀ and O += P·V are small GEMMs
// with a running max and denominator per query vector. Positions are ascending, so each query sees
// one contiguous run of a tile's columns: only those are exponentiated, the rest are zeroed where the
// GEMM path's P·V reads them.
void attend_block(const AttentionArgs& a, const Block& b, Scratch& s) {
    const int hd = a.head_dim, group = a.group, m_rows = b.rows * group;
    const int64_t q_stride = static_cast<int64_t>(a.n_heads) * hd;
    const CacheHeadView& h = a.heads[b.c];
    const bool values = a.out != nullptr;
    s.q.resize(static_cast<std::size_t>(m_rows) * hd);
    s.s.resize(static_cast<std::size_t>(m_rows) * kAttentionTile);
    s.mx.assign(m_rows, kNegInf);
    s.sum.assign(m_rows, 0.0f);
    s.seen.resize(m_rows);
    if (values) s.acc.assign(static_cast<std::size_t>(m_rows) * hd, 0.0f);
    pack_group_queries(a.q, q_stride, b.r0, b.rows, b.c, group, hd, s.q.data());
    // A decode-sized block (a GQA group's query vectors of one row or a few) skips the GEMM's
    // packing and the tile-sized f16 conversion (attention_decode.h).
    const bool decode = m_rows <= kAttentionDecodeVectors && decode_tile_available(hd);
    // The GEMM's P·V reads every column of a tile, so the masked ones must be 0; the decode values
    // read only the columns each vector sees (s.seen), and the fill would be wasted there.
    const bool zero_masked = values && !decode;

    for (int t0 = b.keys.first; t0 < b.keys.end; t0 += kAttentionTile) {
        const int kt = std::min(kAttentionTile, b.keys.end - t0);
        if (decode)
            decode_scores(s.q.data(), m_rows, hd, h.k, h.k16, t0, kt, a.scale, s.s.data(), kAttentionTile);
        else
            score_tile(s.q.data(), m_rows, hd, tile_rows(h.k, h.k16, t0, kt, hd, s.k_tile), kt, a.scale,
                       s.s.data());
        for (int m = 0; m < m_rows; ++m) {
            float* sc = s.s.data() + static_cast<int64_t>(m) * kAttentionTile;
            const TileRange r =
                visible_in_tile(h.positions + t0, kt, a.q_positions[b.r0 + m / group], a.sliding_window);
            s.seen[m] = r;
            if (r.lo >= r.hi) {
                if (zero_masked) std::fill(sc, sc + kt, 0.0f);
                continue;
            }
            const float new_max = std::max(s.mx[m], row_max(sc + r.lo, r.hi - r.lo));
            const float correction = std::exp(s.mx[m] - new_max);  // 0 on the first visible tile
            s.sum[m] = s.sum[m] * correction + exp_shift_sum(sc + r.lo, r.hi - r.lo, new_max);
            s.mx[m] = new_max;
            if (!values) continue;
            if (zero_masked) {
                std::fill(sc, sc + r.lo, 0.0f);
                std::fill(sc + r.hi, sc + kt, 0.0f);
            }
            if (correction != 1.0f) scale_row(s.acc.data() + static_cast<int64_t>(m) * hd, hd, correction);
        }
        if (values && decode)
            decode_values(s.s.data(), kAttentionTile, s.seen.data(), m_rows, hd, h.v, h.v16, t0, kt,
                          s.acc.data());
        else if (values)
            accumulate_values(s.s.data(), m_rows, hd, tile_rows(h.v, h.v16, t0, kt, hd, s.v_tile), kt,
                              s.acc.data());
    }

    for (int m = 0; m < m_rows; ++m) {
        const int row = b.r0 + m / group, head = b.c * group + m % group;
        if (a.lse)
            a.lse[static_cast<int64_t>(row) * a.n_heads + head] =
                s.sum[m] > 0.0f ? s.mx[m] + std::log(s.sum[m]) : kNegInf;
        if (!values) continue;
        const float inv = s.sum[m] > 0.0f ? 1.0f / s.sum[m] : 0.0f;
        const float* src = s.acc.data() + static_cast<int64_t>(m) * hd;
        float* dst = a.out + row * q_stride + static_cast<int64_t>(head) * hd;
        for (int d = 0; d < hd; ++d) dst[d] = src[d] * inv;
    }
}

std::vector<Block> plan_blocks(const AttentionArgs& a) {
    const int rows = attention_block_rows(a.group), cache_heads = a.n_heads / a.group;
    std::vector<Block> blocks;
    blocks.reserve(static_cast<std::size_t>((a.n + rows - 1) / rows) * cache_heads);
    for (int r0 = 0; r0 < a.n; r0 += rows) {
        const int nr = std::min(rows, a.n - r0);
        const auto [lo, hi] = std::minmax_element(a.q_positions + r0, a.q_positions + r0 + nr);
        for (int c = 0; c < cache_heads; ++c) {
            Block b{c, r0, nr, visible_span(a.heads[c], *lo, *hi, a.sliding_window)};
            b.cost = static_cast<int64_t>(nr) * a.group * (b.keys.end - b.keys.first + 1);
            blocks.push_back(b);
        }
    }
    // Costliest first: with dynamic claiming this is the longest-processing-time rule, so the
    // cheap early causal blocks fill in at the end and the threads finish together.
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const Block& x, const Block& y) { return x.cost > y.cost; });
    return blocks;
}

}  // namespace

void attention(const AttentionArgs& a, ThreadPool& pool) {
    if (a.n <= 0) return;
    const std::vector<Block> blocks = plan_blocks(a);
    std::atomic<std::size_t> next{0};
    pool.parallel_for(pool.size(), 1, [&](int64_t, int64_t, int) {
        thread_local Scratch scratch;
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < blocks.size();)
            attend_block(a, blocks[i], scratch);
    });
}

}  // namespace snapdoc::cpu
