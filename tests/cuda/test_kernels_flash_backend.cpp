// The tensor-core prefill path inside the whole CUDA backend, against the CPU backend on tiny
// random-weight models: SnapKV window scores of a sliding-window model past its window (the mask
// in both passes), and a GQA 4:1 model at head_dim 128 whose prefill chunks are not multiples of
// the 16-row tile, logits and window scores.
#include <gtest/gtest.h>

#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/session/prefill.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;
using testing::TinyModelSpec;

// Window scores of layer `layer` after running it over the whole prompt, on one backend.
std::vector<float> layer_window_scores(Backend& b, const std::vector<int32_t>& ids, int layer, int window) {
    const ModelConfig& cfg = b.config();
    const int L = static_cast<int>(ids.size());
    auto kv = make_full_kv_cache(b, L);
    auto act = b.create_activations(L);
    std::vector<int32_t> pos(L);
    for (int i = 0; i < L; ++i) pos[i] = i;
    b.embed(ids.data(), L, *act, 0);
    std::vector<float> q(static_cast<std::size_t>(L) * cfg.q_dim());
    for (int l = 0; l <= layer; ++l) b.run_layer(l, *act, 0, L, pos.data(), *kv, l == layer ? q.data() : nullptr);
    std::vector<float> out(static_cast<std::size_t>(cfg.n_heads) * (L - window));
    b.window_scores(*kv, layer, q.data() + static_cast<std::size_t>(L - window) * cfg.q_dim(), pos.data() + L - window, window,
                    L - window, out.data());
    return out;
}

TEST(FlashBackend, WindowScoresPastTheSlidingWindowMatchCpu) {
    SNAPDOC_REQUIRE_CUDA();
    TinyModelSpec spec;  // dim 64, 4 heads over 2 KV heads, head_dim 16
    spec.sliding_window = 40;
    spec.seed = 71;
    auto t = load_tiny(spec, DType::F32);
    auto cpu = make_cpu_backend(*t->model);
    auto gpu = make_cuda_backend(*t->model);
    const auto ids = random_ids(200, spec.vocab_size, 72);
    const auto want = layer_window_scores(*cpu, ids, 1, 24);
    const auto got = layer_window_scores(*gpu, ids, 1, 24);
    EXPECT_LT(nmse(got, want), 1e-5);
    // Keys before every window row's window get no score at all.
    const int n_prefix = 200 - 24;
    for (int h = 0; h < spec.n_heads; ++h)
        for (int j = 0; j <= n_prefix - spec.sliding_window; ++j) EXPECT_EQ(got[static_cast<std::size_t>(h) * n_prefix + j], 0.0f);
}

TEST(FlashBackend, Gqa4Hd128PrefillAndWindowScoresMatchCpu) {
    SNAPDOC_REQUIRE_CUDA();
    TinyModelSpec spec;
    spec.n_layers = 2;
    spec.dim = 512;
    spec.n_heads = 4;
    spec.n_kv_heads = 1;
    spec.ffn_dim = 256;
    spec.seed = 73;
    auto t = load_tiny(spec, DType::F32);
    auto cpu = make_cpu_backend(*t->model);
    BackendOptions o;
    o.max_chunk_rows = 37;  // chunks of 37 rows: tiles of 16 rows with a ragged last one
    auto gpu = make_cuda_backend(*t->model, o);
    const auto ids = random_ids(130, spec.vocab_size, 74);
    const double e = nmse(prefill_logits(*gpu, ids, 130), prefill_logits(*cpu, ids, 64));
    std::printf("hd128 gqa4: logits NMSE %.3g\n", e);
    EXPECT_LT(e, 1e-5);
    EXPECT_LT(nmse(layer_window_scores(*gpu, ids, 1, 17), layer_window_scores(*cpu, ids, 1, 17)), 1e-5);
}

}  // namespace
}  // namespace snapdoc
