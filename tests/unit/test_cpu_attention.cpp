// The tiled online-softmax attention against a direct softmax, over ragged per-head caches (each
// head keeps a different subset of positions, as SnapKV's compressed cache does) and tile edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu {
namespace {

struct Head {
    std::vector<float> k, v;
    std::vector<int32_t> pos;
};

TEST(CpuAttention, RaggedHeadsMatchDirectSoftmax) {
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.f, 1.f);
    const int hd = 16, n_heads = 6, group = 3, cache_heads = n_heads / group;
    const int lengths[] = {1, kAttentionTile + 7};  // a single entry; crossing a tile edge
    // 5 rows: one block per (row, GQA group); 70 rows: blocks of rows per head (crossing a block edge).
    for (int n : {5, 2 * kAttentionRowBlock + 6})
    for (int len0 : lengths) {
        std::vector<Head> heads(cache_heads);
        std::vector<CacheHeadView> views(cache_heads);
        for (int c = 0; c < cache_heads; ++c) {
            const int len = len0 + 13 * c;  // ragged
            int p = 0;
            for (int j = 0; j < len; ++j) {
                p += 1 + (rng() % 3);  // sparse, ascending kept positions
                heads[c].pos.push_back(p);
                for (int d = 0; d < hd; ++d) heads[c].k.push_back(nd(rng)), heads[c].v.push_back(nd(rng));
            }
            views[c] = {heads[c].k.data(), heads[c].v.data(), heads[c].pos.data(), len};
        }
        std::vector<float> q(n * n_heads * hd), out(q.size());
        for (auto& x : q) x = nd(rng);
        // Queries at ascending positions that cut through the caches (some see only part of them).
        std::vector<int32_t> qpos = {heads[0].pos.front(), 40, 90, 200, 100000};
        for (int r = 5; r < n; ++r) qpos.push_back(heads[0].pos.front() + 3 * r);
        std::sort(qpos.begin(), qpos.end());
        AttentionArgs a;
        a.q = q.data();
        a.q_positions = qpos.data();
        a.n = n;
        a.n_heads = n_heads;
        a.head_dim = hd;
        a.group = group;
        a.heads = views.data();
        a.scale = 0.25f;
        a.out = out.data();
        ThreadPool pool(2);
        attention(a, pool);
        for (int r = 0; r < n; ++r)
            for (int h = 0; h < n_heads; ++h) {
                const Head& H = heads[h / group];
                std::vector<double> w;
                double mx = -1e300;
                for (std::size_t j = 0; j < H.pos.size() && H.pos[j] <= qpos[r]; ++j) {
                    double s = 0;
                    for (int d = 0; d < hd; ++d) s += q[(r * n_heads + h) * hd + d] * H.k[j * hd + d];
                    w.push_back(s * 0.25);
                    mx = std::max(mx, w.back());
                }
                double z = 0;
                for (double& x : w) z += (x = std::exp(x - mx));
                for (int d = 0; d < hd; ++d) {
                    double o = 0;
                    for (std::size_t j = 0; j < w.size(); ++j) o += w[j] / z * H.v[j * hd + d];
                    ASSERT_NEAR(out[(r * n_heads + h) * hd + d], o, 1e-5) << "row " << r << " head " << h;
                }
            }
    }
}

TEST(CpuThreadPool, CoversRangeExactlyOnce) {
    ThreadPool pool(2);
    for (int64_t n : {1, 7, 1000, 100003}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, 3, [&](int64_t a, int64_t b, int) {
            for (int64_t i = a; i < b; ++i) hits[i]++;
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1);
    }
}

}  // namespace
}  // namespace snapdoc::cpu
