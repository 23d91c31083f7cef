#include "engine/runtime/cpu/attention_baseline.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace snapdoc::cpu {

namespace {

constexpr int kTile = 128, kRowBlock = 32;

struct Scratch {
    std::vector<float> scores, acc, mx, sum;
};

// A block of `nb` query vectors (rows of `q` with leading dimension ldq) against one cache head,
// flash-attention style: for each tile of keys, S = Q·Kᵀ and O += P·V are small GEMMs (OpenBLAS,
// single-threaded inside our pool) with a running max and denominator per query. Query i sits at
// position qpos[i * qpos_stride] and sees only entries at positions <= it. The block is either
// consecutive prompt rows of one head (prefill) or the query heads of one GQA group at one
// position (decode: the group shares a single read of the keys and values).
void attend_block(const float* q, int ldq, const int32_t* qpos, int qpos_stride, int nb,
                  const CacheHeadView& h, int hd, float scale, int window, float* out, int ldo, Scratch& s) {
    int32_t max_pos = qpos[0], min_pos = qpos[0];
    for (int i = 1; i < nb; ++i) {
        max_pos = std::max(max_pos, qpos[i * qpos_stride]);
        min_pos = std::min(min_pos, qpos[i * qpos_stride]);
    }
    const int visible =
        static_cast<int>(std::upper_bound(h.positions, h.positions + h.length, max_pos) - h.positions);
    // With a sliding window, the tiles wholly before every query's window are skipped.
    const int first = static_cast<int>(
        std::lower_bound(h.positions, h.positions + h.length, first_visible_position(min_pos, window)) -
        h.positions);
    s.scores.resize(static_cast<std::size_t>(nb) * kTile);
    s.acc.assign(static_cast<std::size_t>(nb) * hd, 0.0f);
    s.mx.assign(nb, -std::numeric_limits<float>::infinity());
    s.sum.assign(nb, 0.0f);
    for (int t0 = first; t0 < visible; t0 += kTile) {
        const int kt = std::min(kTile, visible - t0);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, kt, hd, scale, q, ldq,
                    h.k + static_cast<int64_t>(t0) * hd, hd, 0.0f, s.scores.data(), kTile);
        for (int i = 0; i < nb; ++i) {
            float* sc = s.scores.data() + static_cast<int64_t>(i) * kTile;
            const int32_t p = qpos[i * qpos_stride], lo = first_visible_position(p, window);
            float tile_max = -std::numeric_limits<float>::infinity();
            for (int j = 0; j < kt; ++j) {
                const int32_t kp = h.positions[t0 + j];
                if (kp > p || kp < lo) sc[j] = -std::numeric_limits<float>::infinity();
                tile_max = std::max(tile_max, sc[j]);
            }
            const float new_max = std::max(s.mx[i], tile_max);
            if (new_max == -std::numeric_limits<float>::infinity()) {  // nothing visible yet for this query
                std::fill(sc, sc + kt, 0.0f);
                continue;
            }
            const float correction = std::exp(s.mx[i] - new_max);  // exp(-inf) = 0 on the first tile
            float sum = 0.0f;
            for (int j = 0; j < kt; ++j) sum += (sc[j] = std::exp(sc[j] - new_max));
            s.sum[i] = s.sum[i] * correction + sum;
            s.mx[i] = new_max;
            float* o = s.acc.data() + static_cast<int64_t>(i) * hd;
            for (int d = 0; d < hd; ++d) o[d] *= correction;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nb, hd, kt, 1.0f, s.scores.data(), kTile,
                    h.v + static_cast<int64_t>(t0) * hd, hd, 1.0f, s.acc.data(), hd);
    }
    for (int i = 0; i < nb; ++i) {
        const float inv = s.sum[i] > 0.0f ? 1.0f / s.sum[i] : 0.0f;
        float* dst = out + static_cast<int64_t>(i) * ldo;
        for (int d = 0; d < hd; ++d) dst[d] = s.acc[static_cast<int64_t>(i) * hd + d] * inv;
    }
}

}  // namespace

void attention_baseline(const AttentionArgs& a, ThreadPool& pool) {
    const int hd = a.head_dim, q_stride = a.n_heads * a.head_dim, cache_heads = a.n_heads / a.group;
    std::vector<Scratch> scratch(pool.size());
    if (a.n >= kRowBlock) {
        // Prefill: blocks of consecutive rows per query head.
        const int blocks = (a.n + kRowBlock - 1) / kRowBlock;
        pool.parallel_for(
            static_cast<int64_t>(blocks) * a.n_heads, 1, [&](int64_t w0, int64_t w1, int thread) {
                for (int64_t w = w0; w < w1; ++w) {
                    // Heads vary fastest, so the costly late blocks (long causal rows) spread over threads.
                    const int head = static_cast<int>(w % a.n_heads);
                    const int r0 = static_cast<int>(w / a.n_heads) * kRowBlock;
                    const int64_t off = static_cast<int64_t>(r0) * q_stride + static_cast<int64_t>(head) * hd;
                    attend_block(a.q + off, q_stride, a.q_positions + r0, 1, std::min(kRowBlock, a.n - r0),
                                 a.heads[head / a.group], hd, a.scale, a.sliding_window, a.out + off,
                                 q_stride, scratch[thread]);
                }
            });
        return;
    }
    // Decode and short blocks: one task per (row, cache head); the group's query heads are
    // contiguous in the row, so they form one [group, head_dim] block.
    pool.parallel_for(static_cast<int64_t>(a.n) * cache_heads, 1, [&](int64_t w0, int64_t w1, int thread) {
        for (int64_t w = w0; w < w1; ++w) {
            const int row = static_cast<int>(w / cache_heads), c = static_cast<int>(w % cache_heads);
            const int64_t off = static_cast<int64_t>(row) * q_stride + static_cast<int64_t>(c) * a.group * hd;
            attend_block(a.q + off, hd, a.q_positions + row, 0, a.group, a.heads[c], hd, a.scale,
                         a.sliding_window, a.out + off, hd, scratch[thread]);
        }
    });
}

}  // namespace snapdoc::cpu
