// SnapKV selection against a brute-force implementation written here: explicit pooling loops and
// a full sort. Ties are allowed to resolve either way: a kept set is correct when it has the right
// size and no dropped position scores higher than a kept one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "engine/common/error.h"
#include "engine/kv/pooling.h"
#include "engine/kv/selection.h"

namespace snapdoc {
namespace {

std::vector<float> brute_pool(const float* in, int n, int kernel, Pooling p) {
    std::vector<float> out(n);
    const int r = kernel / 2;
    for (int i = 0; i < n; ++i) {
        double acc = p == Pooling::Max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int j = i - r; j <= i + r; ++j) {
            const double v = (j < 0 || j >= n) ? (p == Pooling::Max ? -std::numeric_limits<double>::infinity() : 0.0)
                                                : in[j];
            acc = p == Pooling::Max ? std::max(acc, v) : acc + v;
        }
        out[i] = static_cast<float>(p == Pooling::Max ? acc : acc / kernel);
    }
    return out;
}

WindowScores random_scores(int layers, int heads, int kv_heads, int L, int W, int seed, int levels = 0) {
    WindowScores ws;
    ws.prompt_len = L;
    ws.window = std::min(W, L);
    ws.n_layers = layers;
    ws.n_heads = heads;
    ws.n_kv_heads = kv_heads;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (int l = 0; l < layers; ++l) {
        std::vector<float> v(static_cast<std::size_t>(heads) * ws.n_prefix());
        // levels > 0 quantises scores so that ties are frequent.
        for (auto& x : v) x = levels ? std::floor(u(rng) * levels) / levels : u(rng);
        ws.layers.push_back(std::move(v));
    }
    return ws;
}

// Checks one head's kept set against brute-force pooled scores.
void expect_valid_topk(const HeadSelection& h, const std::vector<float>& pooled, int k) {
    ASSERT_EQ(static_cast<int>(h.kept.size()), k);
    ASSERT_TRUE(std::is_sorted(h.kept.begin(), h.kept.end()));
    ASSERT_EQ(std::set<int32_t>(h.kept.begin(), h.kept.end()).size(), h.kept.size());
    for (std::size_t i = 0; i < pooled.size(); ++i) ASSERT_NEAR(h.pooled[i], pooled[i], 1e-5);
    std::vector<char> kept(pooled.size(), 0);
    float min_kept = std::numeric_limits<float>::infinity();
    for (int32_t p : h.kept) kept[p] = 1, min_kept = std::min(min_kept, pooled[p]);
    for (std::size_t i = 0; i < pooled.size(); ++i) {
        if (!kept[i]) {
            ASSERT_LE(pooled[i], min_kept + 1e-6) << "dropped position " << i << " outranks a kept one";
        }
    }
}

struct Case {
    GqaMode gqa;
    Pooling pooling;
    int kernel;
    int levels;
};

class SnapKvSelection : public ::testing::TestWithParam<Case> {};

TEST_P(SnapKvSelection, MatchesBruteForce) {
    const Case c = GetParam();
    const int layers = 2, heads = 8, kv_heads = 2, L = 300, W = 16, group = heads / kv_heads;
    const WindowScores ws = random_scores(layers, heads, kv_heads, L, W, 17, c.levels);
    SnapKvConfig cfg;
    cfg.budget = 64;
    cfg.window = W;
    cfg.kernel = c.kernel;
    cfg.pooling = c.pooling;
    cfg.gqa = c.gqa;
    const auto sel = select_positions(cfg, ws);
    ASSERT_TRUE(sel->compressed);
    const int n = ws.n_prefix();
    for (int l = 0; l < layers; ++l) {
        std::vector<std::vector<float>> pooled(heads);
        for (int h = 0; h < heads; ++h) pooled[h] = brute_pool(ws.head(l, h), n, c.kernel, c.pooling);
        if (c.gqa == GqaMode::QueryHead) {
            ASSERT_EQ(sel->cache_heads, heads);
            for (int h = 0; h < heads; ++h) expect_valid_topk(sel->layers[l][h], pooled[h], cfg.budget - W);
        } else {
            ASSERT_EQ(sel->cache_heads, kv_heads);
            for (int k = 0; k < kv_heads; ++k) {
                std::vector<float> mean(n, 0.f);
                for (int g = 0; g < group; ++g)
                    for (int i = 0; i < n; ++i) mean[i] += pooled[k * group + g][i] / group;
                expect_valid_topk(sel->layers[l][k], mean, cfg.budget - W);
            }
        }
    }
    EXPECT_EQ(sel->kept_entries(), static_cast<int64_t>(layers) * sel->cache_heads * cfg.budget);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, SnapKvSelection,
    ::testing::Values(Case{GqaMode::KvHead, Pooling::Max, 7, 0}, Case{GqaMode::KvHead, Pooling::Avg, 7, 0},
                      Case{GqaMode::QueryHead, Pooling::Max, 7, 0}, Case{GqaMode::QueryHead, Pooling::Avg, 5, 0},
                      Case{GqaMode::KvHead, Pooling::Max, 1, 0}, Case{GqaMode::QueryHead, Pooling::Max, 7, 4},
                      Case{GqaMode::KvHead, Pooling::Avg, 3, 3}, Case{GqaMode::KvHead, Pooling::Max, 999, 0},
                      Case{GqaMode::QueryHead, Pooling::Avg, 1001, 0}));

TEST(SnapKvPooling, KernelLongerThanPrefix) {
    const std::vector<float> in = {3, 1, 2};
    std::vector<float> out(3);
    pool_1d(in, out, 9, Pooling::Max);
    EXPECT_EQ(out, (std::vector<float>{3, 3, 3}));
    pool_1d(in, out, 9, Pooling::Avg);
    for (float v : out) EXPECT_NEAR(v, 6.0f / 9.0f, 1e-6);  // zero padding counts in the divisor
}

TEST(SnapKvSelection, AllEqualScoresKeepExactlyTheBudget) {
    WindowScores ws = random_scores(1, 4, 4, 100, 8, 1);
    for (auto& v : ws.layers) std::fill(v.begin(), v.end(), 0.5f);
    SnapKvConfig cfg;
    cfg.budget = 20;
    cfg.window = 8;
    const auto sel = select_positions(cfg, ws);
    for (const auto& h : sel->layers[0]) EXPECT_EQ(h.kept.size(), 12u);
}

TEST(SnapKvSelection, PromptWithinBudgetIsNotCompressed) {
    const WindowScores ws = random_scores(2, 4, 2, 50, 8, 3);
    SnapKvConfig cfg;
    cfg.budget = 50;
    cfg.window = 8;
    const auto sel = select_positions(cfg, ws);
    EXPECT_FALSE(sel->compressed);
    for (const auto& layer : sel->layers)
        for (const auto& h : layer) EXPECT_EQ(h.kept.size(), 42u);
}

TEST(SnapKvSelection, WindowCoveringThePromptKeepsEverything) {
    const WindowScores ws = random_scores(1, 2, 2, 10, 32, 3);  // W >= L: all of it is window
    EXPECT_EQ(ws.n_prefix(), 0);
    SnapKvConfig cfg;
    cfg.budget = 64;
    const auto sel = select_positions(cfg, ws);
    EXPECT_FALSE(sel->compressed);
    EXPECT_EQ(sel->kept_entries(), 2 * 10);
}

TEST(SnapKvSelection, InvalidSettingsAreClearErrors) {
    const WindowScores ws = random_scores(1, 2, 2, 100, 8, 3);
    SnapKvConfig cfg;
    cfg.window = 8;
    cfg.budget = 8;
    EXPECT_THROW(select_positions(cfg, ws), Error);  // B <= W
    cfg.budget = 32;
    cfg.kernel = 4;
    EXPECT_THROW(select_positions(cfg, ws), Error);  // even kernel
    cfg.kernel = 0;
    EXPECT_THROW(select_positions(cfg, ws), Error);
    try {
        cfg.kernel = 6;
        cfg.validate();
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("odd"), std::string::npos);
    }
}

TEST(SnapKvBudgets, PyramidDecreasesAndKeepsTheTotal) {
    SnapKvConfig cfg;
    cfg.budget = 160;
    cfg.window = 32;
    cfg.policy = BudgetPolicy::Pyramid;
    const auto b = layer_prefix_budgets(cfg, 8, 100000);
    EXPECT_EQ(std::accumulate(b.begin(), b.end(), 0), 8 * 128);
    for (std::size_t i = 1; i < b.size(); ++i) EXPECT_LE(b[i], b[i - 1]);
    EXPECT_GT(b.front(), 128);
    EXPECT_LT(b.back(), 128);
    EXPECT_GE(b.back(), 128 / 20);
}

TEST(SnapKvBudgets, AdaptiveCountsSumToTheLayerTotalWithFloor) {
    const int heads = 4, kv_heads = 4, L = 400, W = 16;
    WindowScores ws = random_scores(3, heads, kv_heads, L, W, 5);
    // Make head 0 much more "attentive" so it wins most of the shared budget.
    for (auto& layer : ws.layers)
        for (int i = 0; i < ws.n_prefix(); ++i) layer[i] += 10.0f;
    SnapKvConfig cfg;
    cfg.budget = 80;
    cfg.window = W;
    cfg.policy = BudgetPolicy::Adaptive;
    cfg.adaptive_floor = 0.25f;
    const auto sel = select_positions(cfg, ws);
    const int base = cfg.budget - W, floor = static_cast<int>(0.25f * base);
    for (const auto& layer : sel->layers) {
        int total = 0;
        for (const auto& h : layer) {
            EXPECT_GE(static_cast<int>(h.kept.size()), floor);
            EXPECT_TRUE(std::is_sorted(h.kept.begin(), h.kept.end()));
            total += static_cast<int>(h.kept.size());
        }
        EXPECT_EQ(total, heads * base);
        EXPECT_GT(layer[0].kept.size(), layer[1].kept.size());  // ragged: counts really differ
    }
}

}  // namespace
}  // namespace snapdoc
