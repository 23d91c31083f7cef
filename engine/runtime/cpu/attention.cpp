#include "engine/runtime/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <cblas.h>

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

// A block of query rows of one head against the cache, flash-attention style: for each tile of
// keys, S = Q·Kᵀ and O += P·V are small GEMMs (OpenBLAS, single-threaded inside our pool), with the
// running max / denominator per row. Rows see only entries at positions <= their own.
void attend_block(const AttentionArgs& a, int head, int r0, int nb, float* scores, float* out_acc, float* row_max,
                  float* row_sum) {
    const int hd = a.head_dim, q_stride = a.n_heads * a.head_dim;
    const CacheHeadView& h = a.heads[head / a.group];
    int32_t max_pos = a.q_positions[r0];
    for (int i = 1; i < nb; ++i) max_pos = std::max(max_pos, a.q_positions[r0 + i]);
    const int visible = static_cast<int>(std::upper_bound(h.positions, h.positions + h.length, max_pos) - h.positions);
    const float* qb = a.q + static_cast<int64_t>(r0) * q_stride + static_cast<int64_t>(head) * hd;
    std::fill(out_acc, out_acc + static_cast<int64_t>(nb) * hd, 0.0f);
    std::fill(row_max, row_max + nb, -std::numeric_limits<float>::infinity());
    std::fill(row_sum, row_sum + nb, 0.0f);
    for (int t0 = 0; t0 < visible; t0 += kAttentionTile) {
        const int kt = std::min(kAttentionTile, visible - t0);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, kt, hd, a.scale, qb, q_stride,
                    h.k + static_cast<int64_t>(t0) * hd, hd, 0.0f, scores, kAttentionTile);
        for (int i = 0; i < nb; ++i) {
            float* s = scores + static_cast<int64_t>(i) * kAttentionTile;
            const int32_t qp = a.q_positions[r0 + i];
            float tile_max = -std::numeric_limits<float>::infinity();
            for (int j = 0; j < kt; ++j) {
                if (h.positions[t0 + j] > qp) s[j] = -std::numeric_limits<float>::infinity();
                tile_max = std::max(tile_max, s[j]);
            }
            const float new_max = std::max(row_max[i], tile_max);
            if (new_max == -std::numeric_limits<float>::infinity()) {  // nothing visible yet for this row
                for (int j = 0; j < kt; ++j) s[j] = 0.0f;
                continue;
            }
            const float correction = std::exp(row_max[i] - new_max);
            float sum = 0.0f;
            for (int j = 0; j < kt; ++j) sum += (s[j] = std::exp(s[j] - new_max));
            row_sum[i] = row_sum[i] * correction + sum;
            row_max[i] = new_max;
            float* o = out_acc + static_cast<int64_t>(i) * hd;
            for (int d = 0; d < hd; ++d) o[d] *= correction;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nb, hd, kt, 1.0f, scores, kAttentionTile,
                    h.v + static_cast<int64_t>(t0) * hd, hd, 1.0f, out_acc, hd);
    }
    for (int i = 0; i < nb; ++i) {
        const float inv = row_sum[i] > 0.0f ? 1.0f / row_sum[i] : 0.0f;
        float* dst = a.out + static_cast<int64_t>(r0 + i) * q_stride + static_cast<int64_t>(head) * hd;
        for (int d = 0; d < hd; ++d) dst[d] = out_acc[static_cast<int64_t>(i) * hd + d] * inv;
    }
}

}  // namespace

void attention(const AttentionArgs& a, ThreadPool& pool) {
    if (a.n > kAttentionRowBlock / 4) {
        // Prefill: blocks of query rows per head, so the score and value products are GEMMs.
        const int blocks = (a.n + kAttentionRowBlock - 1) / kAttentionRowBlock;
        struct Scratch {
            std::vector<float> scores, acc, mx, sum;
        };
        std::vector<Scratch> scratch(pool.size());
        for (auto& s : scratch) {
            s.scores.resize(static_cast<std::size_t>(kAttentionRowBlock) * kAttentionTile);
            s.acc.resize(static_cast<std::size_t>(kAttentionRowBlock) * a.head_dim);
            s.mx.resize(kAttentionRowBlock);
            s.sum.resize(kAttentionRowBlock);
        }
        pool.parallel_for(static_cast<int64_t>(blocks) * a.n_heads, 1, [&](int64_t w0, int64_t w1, int thread) {
            Scratch& s = scratch[thread];
            for (int64_t w = w0; w < w1; ++w) {
                // Heads vary fastest, so the costly late blocks (long causal rows) spread over threads.
                const int head = static_cast<int>(w % a.n_heads);
                const int r0 = static_cast<int>(w / a.n_heads) * kAttentionRowBlock;
                attend_block(a, head, r0, std::min(kAttentionRowBlock, a.n - r0), s.scores.data(), s.acc.data(),
                             s.mx.data(), s.sum.data());
            }
        });
        return;
    }
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
