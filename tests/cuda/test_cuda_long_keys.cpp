// More than 32K keys per head on the CUDA path (issue 13 item 6: nothing beyond 5,000 keys was
// checked): window scores, the single-row (split-KV decode) attention and a multi-row chunk over a
// 33,000-entry cache, against the CPU backend on the same f16-exact keys and values. The cache is
// filled with append_kv (no 33K-token prefill), so this stays seconds under the emulation. A key
// planted past position 32768 must come out on top in both, so an index that wraps or stops at
// 32K cannot pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "engine/runtime/cuda/cuda_backend.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

constexpr int kKeys = 33000;     // entries per KV head before the queries
constexpr int kNeedle = 32900;   // a key past 32768 that head 0's window queries all point at
constexpr int kWindow = 4;

class CudaLongKeys : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        testing::TinyModelSpec s;  // dim 64, 4 query heads, 2 KV heads, head_dim 16
        s.n_layers = 1;            // one layer: the emulated tensor-core tiles over 33K keys dominate the time
        s.seed = 51;
        s.context_length = 65536;
        tiny = load_tiny(s, DType::F32);
        cpu = make_cpu_backend(*tiny->model);
        gpu = make_cuda_backend(*tiny->model);
        const ModelConfig& c = tiny->model->config;
        hd = c.head_dim;
        // One query direction for head 0's window rows; the needle key is that direction, scaled.
        dir = random_floats(static_cast<std::size_t>(hd), 52);
        for (Backend* b : {cpu.get(), gpu.get()}) {
            auto kv = b->create_kv_cache(KvCacheSpec::uniform(c.n_layers, c.n_kv_heads, hd, c.group_size(), kKeys + 8));
            std::vector<int32_t> pos(kKeys);
            for (int i = 0; i < kKeys; ++i) pos[i] = i;
            for (int l = 0; l < c.n_layers; ++l)
                for (int h = 0; h < c.n_kv_heads; ++h) {
                    const uint32_t seed = 100 + 10 * l + h;
                    auto k = round_f16(random_floats(static_cast<std::size_t>(kKeys) * hd, seed, 0.5f));
                    const auto v = round_f16(random_floats(static_cast<std::size_t>(kKeys) * hd, seed + 5));
                    if (h == 0)
                        for (int i = 0; i < hd; ++i)
                            k[static_cast<std::size_t>(kNeedle) * hd + i] = round_f16({4.0f * dir[i]})[0];
                    b->append_kv(*kv, l, h, pos.data(), kKeys, k.data(), v.data());
                }
            (b == cpu.get() ? cpu_kv : gpu_kv) = std::move(kv);
        }
    }

    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> cpu, gpu;
    std::unique_ptr<KvCache> cpu_kv, gpu_kv;
    std::vector<float> dir;
    int hd = 0;
};

TEST_F(CudaLongKeys, WindowScoresOver33000KeysMatchCpu) {
    const ModelConfig& c = tiny->model->config;
    const int prefix = kKeys - kWindow;
    // The window: the cache's last kWindow entries' positions, queries random except head 0 (and
    // head 1, the other query head of KV head 0), which look along the needle.
    auto q = random_floats(static_cast<std::size_t>(kWindow) * c.q_dim(), 53);
    for (int r = 0; r < kWindow; ++r)
        for (int i = 0; i < hd; ++i) q[static_cast<std::size_t>(r) * c.q_dim() + i] = 4.0f * dir[i];
    std::vector<int32_t> qpos(kWindow);
    for (int r = 0; r < kWindow; ++r) qpos[r] = prefix + r;
    for (int layer = 0; layer < c.n_layers; ++layer) {
        std::vector<float> want(static_cast<std::size_t>(c.n_heads) * prefix), got(want.size());
        cpu->window_scores(*cpu_kv, layer, q.data(), qpos.data(), kWindow, prefix, want.data());
        gpu->window_scores(*gpu_kv, layer, q.data(), qpos.data(), kWindow, prefix, got.data());
        const double e = nmse(got, want);
        std::printf("layer %d: window scores over %d keys, NMSE %.3g vs cpu\n", layer, prefix, e);
        EXPECT_LT(e, 1e-8);
        // Head 0's mass sits on the needle past 32K, in both.
        const auto top = [&](const std::vector<float>& s) {
            return static_cast<int>(std::max_element(s.begin(), s.begin() + prefix) - s.begin());
        };
        EXPECT_EQ(top(want), kNeedle);
        EXPECT_EQ(top(got), kNeedle);
        EXPECT_GT(got[kNeedle], 0.5f * kWindow);
        // Every window row's softmax sums to 1 over the keys it sees; the prefix gets most of it.
        for (int h = 0; h < c.n_heads; ++h) {
            double sum = 0;
            for (int j = 0; j < prefix; ++j) sum += got[static_cast<std::size_t>(h) * prefix + j];
            EXPECT_LE(sum, kWindow + 1e-3);
            EXPECT_GT(sum, kWindow - 0.01);
        }
    }
}

// Rows attending over all 33,000 keys (+ their own): one row per call (the split-KV decode path),
// then a 3-row chunk (the prefill path). The hidden states go through the layer to the logits.
TEST_F(CudaLongKeys, AttentionOver33000KeysMatchesCpu) {
    const ModelConfig& c = tiny->model->config;
    const auto ids = random_ids(4, c.vocab_size, 54);
    const auto run = [&](Backend& b, KvCache& kv, int first, int n) {
        auto act = b.create_activations(n);
        std::vector<int32_t> pos(n);
        for (int i = 0; i < n; ++i) pos[i] = kKeys + first + i;
        b.embed(ids.data() + first, n, *act, 0);
        for (int l = 0; l < c.n_layers; ++l) b.run_layer(l, *act, 0, n, pos.data(), kv, nullptr);
        std::vector<float> logits(static_cast<std::size_t>(n) * c.vocab_size);
        for (int i = 0; i < n; ++i) b.logits(*act, i, logits.data() + static_cast<std::size_t>(i) * c.vocab_size);
        return logits;
    };
    for (const auto& [first, n] : {std::pair{0, 1}, std::pair{1, 3}}) {
        const auto want = run(*cpu, *cpu_kv, first, n);
        const auto got = run(*gpu, *gpu_kv, first, n);
        const double e = nmse(got, want);
        std::printf("%d row(s) over %d keys: logits NMSE %.3g vs cpu\n", n, kKeys + first, e);
        EXPECT_LT(e, 1e-6);
        expect_argmax_agrees_within_margin(got, want, c.vocab_size, 0.01);  // the rows' own keys are f16 on the device
    }
    EXPECT_EQ(gpu_kv->length(0, 0), kKeys + 4);
}

}  // namespace
}  // namespace snapdoc
