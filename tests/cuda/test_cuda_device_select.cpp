// SnapKV's selection on the device (engine/runtime/cuda/cuda_snapkv_select.h, the CUDA backend's
// snapkv_select_layer) against engine/kv/selection on the host: the same kept positions and the
// same pooled scores, bit for bit — on random scores with many exact ties (coarse levels, flat
// runs), both poolings, both GQA modes, uniform, pyramid and adaptive budgets, and a prompt within
// the budget (nothing compressed).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/kv/selection.h"
#include "engine/runtime/cuda/cuda_snapkv_select.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

// Scores on a coarse grid (exact ties everywhere), with flat runs and a few heavy hitters.
WindowScores tied_scores(int n_layers, int n_heads, int n_kv, int n_prefix, int window, uint32_t seed) {
    WindowScores ws;
    ws.prompt_len = n_prefix + window;
    ws.window = window;
    ws.n_layers = n_layers;
    ws.n_heads = n_heads;
    ws.n_kv_heads = n_kv;
    std::mt19937 rng(seed);
    ws.layers.resize(n_layers);
    for (auto& layer : ws.layers) {
        layer.resize(static_cast<std::size_t>(n_heads) * n_prefix);
        for (std::size_t i = 0; i < layer.size(); ++i) {
            const unsigned r = rng();
            if (r % 7 == 0 && i > 0) {
                layer[i] = layer[i - 1];  // flat run
            } else {
                layer[i] = static_cast<float>(r % 5) * 0.125f;  // 5 levels: ties at every cut-off
                if (r % 97 == 0) layer[i] += 3.0f;
            }
        }
    }
    return ws;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void expect_identical(const Selection& got, const Selection& want) {
    ASSERT_EQ(got.layers.size(), want.layers.size());
    ASSERT_EQ(got.cache_heads, want.cache_heads);
    EXPECT_EQ(got.compressed, want.compressed);
    for (std::size_t l = 0; l < want.layers.size(); ++l)
        for (int h = 0; h < want.cache_heads; ++h) {
            EXPECT_EQ(got.layers[l][h].kept, want.layers[l][h].kept) << "layer " << l << " head " << h;
            EXPECT_TRUE(same_bits(got.layers[l][h].pooled, want.layers[l][h].pooled)) << "layer " << l << " head " << h;
        }
}

struct SelectCase {
    int n_heads, n_kv, n_prefix, window, budget, kernel;
    GqaMode gqa;
    Pooling pooling;
    BudgetPolicy policy;
};

class DeviceSelect : public ::testing::TestWithParam<SelectCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(DeviceSelect, EqualsHostSelectionBitForBit) {
    const SelectCase c = GetParam();
    for (uint32_t seed : {1u, 2u}) {
        const WindowScores ws = tied_scores(3, c.n_heads, c.n_kv, c.n_prefix, c.window, seed);
        SnapKvConfig cfg;
        cfg.budget = c.budget;
        cfg.window = c.window;
        cfg.kernel = c.kernel;
        cfg.gqa = c.gqa;
        cfg.pooling = c.pooling;
        cfg.policy = c.policy;
        const auto want = select_positions(cfg, ws);
        auto got = begin_selection(cfg, ws);
        cuda::CudaSnapKvSelect device(nullptr);
        for (int l = 0; l < ws.n_layers; ++l) device.select_layer(ws, l, *got);
        expect_identical(*got, *want);
        if (want->compressed && c.policy == BudgetPolicy::Adaptive) {
            // AdaKV's per-head counts really differ here (the ragged case), and sum to the layer total.
            std::size_t lo = SIZE_MAX, hi = 0, sum = 0;
            for (const auto& h : want->layers[0]) {
                lo = std::min(lo, h.kept.size());
                hi = std::max(hi, h.kept.size());
                sum += h.kept.size();
            }
            EXPECT_LT(lo, hi);
            EXPECT_EQ(sum, static_cast<std::size_t>(c.budget - c.window) * want->cache_heads);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DeviceSelect,
    ::testing::Values(SelectCase{8, 2, 700, 16, 144, 7, GqaMode::KvHead, Pooling::Max, BudgetPolicy::Uniform},
                      SelectCase{8, 2, 700, 16, 144, 7, GqaMode::KvHead, Pooling::Avg, BudgetPolicy::Uniform},
                      SelectCase{6, 2, 513, 8, 100, 5, GqaMode::KvHead, Pooling::Avg, BudgetPolicy::Uniform},  // group 3
                      SelectCase{8, 2, 600, 16, 120, 7, GqaMode::QueryHead, Pooling::Max, BudgetPolicy::Uniform},
                      SelectCase{8, 2, 600, 16, 120, 9, GqaMode::QueryHead, Pooling::Avg, BudgetPolicy::Uniform},
                      SelectCase{8, 2, 700, 16, 144, 7, GqaMode::KvHead, Pooling::Max, BudgetPolicy::Adaptive},
                      SelectCase{8, 2, 700, 16, 144, 7, GqaMode::QueryHead, Pooling::Avg, BudgetPolicy::Adaptive},
                      SelectCase{8, 2, 700, 16, 144, 3, GqaMode::KvHead, Pooling::Avg, BudgetPolicy::Pyramid},
                      SelectCase{4, 4, 300, 8, 2000, 7, GqaMode::KvHead, Pooling::Max, BudgetPolicy::Uniform},  // not compressed
                      SelectCase{4, 1, 90, 4, 60, 201, GqaMode::KvHead, Pooling::Avg, BudgetPolicy::Uniform}),  // kernel > prefix
    [](const auto& info) {
        const SelectCase& c = info.param;
        return "h" + std::to_string(c.n_heads) + "_kv" + std::to_string(c.n_kv) + "_n" + std::to_string(c.n_prefix) + "_B" +
               std::to_string(c.budget) + "_k" + std::to_string(c.kernel) +
               (c.gqa == GqaMode::KvHead ? "_kvhead" : "_queryhead") + (c.pooling == Pooling::Max ? "_max" : "_avg") + "_" +
               std::string(budget_policy_name(c.policy));
    });

// The backend hook: the CUDA backend's snapkv_select_layer is the device path, the CPU backend's
// the host default; on the same scores they agree exactly.
TEST(DeviceSelectBackend, CudaBackendHookEqualsCpuBackendDefault) {
    SNAPDOC_REQUIRE_CUDA();
    testing::TinyModelSpec spec;
    spec.n_heads = 8;
    spec.n_kv_heads = 2;
    auto tiny = load_tiny(spec, DType::F32);
    auto cpu = make_cpu_backend(*tiny->model);
    auto gpu = make_cuda_backend(*tiny->model);
    const WindowScores ws = tied_scores(2, 8, 2, 400, 16, 9);
    for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Adaptive}) {
        SnapKvConfig cfg;
        cfg.budget = 80;
        cfg.window = 16;
        cfg.policy = policy;
        auto a = begin_selection(cfg, ws), b = begin_selection(cfg, ws);
        for (int l = 0; l < ws.n_layers; ++l) {
            cpu->snapkv_select_layer(ws, l, *a);
            gpu->snapkv_select_layer(ws, l, *b);
        }
        expect_identical(*b, *a);
    }
}

}  // namespace
}  // namespace snapdoc
