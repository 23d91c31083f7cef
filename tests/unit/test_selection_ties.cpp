// SnapKV selection is deterministic at ties (so the CUDA backend's device selection can equal it
// exactly): the top-k takes the lowest positions among equal scores, AdaKV's global split the lowest
// (head, position), and a kv-head group's pooled score is the sum of its heads' divided once.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "engine/kv/pooling.h"
#include "engine/kv/selection.h"

namespace snapdoc {
namespace {

TEST(SelectionTies, TopKTakesTheLowestPositionsAmongEqualScores) {
    std::vector<float> s(500, 1.0f);
    for (int i = 0; i < 500; i += 50) s[i] = 2.0f;  // 10 larger values
    const auto kept = top_k_positions(s.data(), 500, 40);
    // The 10 larger values plus the 30 lowest positions of the rest.
    std::vector<int32_t> want;
    for (int i = 0; i < 500; i += 50) want.push_back(i);
    for (int i = 0, taken = 0; taken < 30; ++i)
        if (i % 50 != 0) want.push_back(i), ++taken;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(kept, want);
}

TEST(SelectionTies, AdaptiveSplitBreaksTiesByHeadThenPosition) {
    std::vector<float> a(100, 0.5f), b(100, 0.5f);
    const auto kept = adaptive_split({a.data(), b.data()}, 100, 30, 5);
    // Floors: positions 0..4 of each head; the other 20 go to head 0 (lower), positions 5..24.
    ASSERT_EQ(kept.size(), 2u);
    std::vector<int32_t> h0(25), h1(5);
    std::iota(h0.begin(), h0.end(), 0);
    std::iota(h1.begin(), h1.end(), 0);
    EXPECT_EQ(kept[0], h0);
    EXPECT_EQ(kept[1], h1);
}

TEST(SelectionTies, KvHeadGroupScoreIsTheSumDividedOnce) {
    WindowScores ws;
    ws.prompt_len = 40;
    ws.window = 8;
    ws.n_layers = 1;
    ws.n_heads = 3;
    ws.n_kv_heads = 1;
    ws.layers.assign(1, std::vector<float>(3 * 32));
    for (std::size_t i = 0; i < ws.layers[0].size(); ++i) ws.layers[0][i] = 0.1f * static_cast<float>((i * 7919) % 13);
    SnapKvConfig cfg;
    cfg.budget = 20;
    cfg.window = 8;
    cfg.kernel = 5;
    cfg.pooling = Pooling::Avg;
    const auto sel = select_positions(cfg, ws);
    std::vector<float> p(32), sum(32, 0.0f);
    for (int h = 0; h < 3; ++h) {
        pool_1d({ws.head(0, h), 32}, p, cfg.kernel, cfg.pooling);
        for (int i = 0; i < 32; ++i) sum[i] += p[i];
    }
    for (int i = 0; i < 32; ++i) EXPECT_EQ(sel->layers[0][0].pooled[i], sum[i] / 3.0f) << i;
}

}  // namespace
}  // namespace snapdoc
