// Perf mode of the tensor-core prefill attention and window scores next to the CUDA-core kernels
// they replace, at the Mistral-7B attention shape (32 query / 8 KV heads, head_dim 128) on random
// device data: ms and achieved TFLOP/s (causal pairs only). DISABLED_ so ctest and the emulated
// suite never run them; a GPU session runs them with --gtest_also_run_disabled_tests
// --gtest_filter='CudaFlashPerf.*'. Numbers, never pass/fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "engine/model/dtype.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "kernels/attention.h"
#include "kernels/flash_prefill.h"
#include "kernels/flash_window_scores.h"
#include "kernels/window_scores.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

constexpr int kHeads = 32, kKvHeads = 8, kHeadDim = 128;
constexpr float kScale = 0.088388f;  // 1 / sqrt(kHeadDim)

// The CUDA-core attention (kernels/attention.h) over `n` query rows of the perf shape, with its
// split-KV scratch, for the comparison with the tensor-core kernels.
cuda::DeviceBuffer core_attention_scratch(int n, int len, int sm) {
    const int64_t floats = kernels::attention_scratch_floats(n, kHeads, kKvHeads, kHeadDim, len, sm);
    return cuda::DeviceBuffer(std::size_t(std::max<int64_t>(floats, 1)) * 4, "scratch");
}
kernels::AttentionArgs core_attention_args(const float* q, const int32_t* q_pos, int n, const kernels::KvLayerView& cache,
                                           int len, float* out, cuda::DeviceBuffer& scratch, int sm) {
    kernels::AttentionArgs c;
    c.q = q;
    c.q_stride = kHeads * kHeadDim;
    c.q_pos = q_pos;
    c.n = n;
    c.n_heads = kHeads;
    c.scale = kScale;
    c.cache = cache;
    c.max_len = len;
    c.out = out;
    c.out_stride = kHeads * kHeadDim;
    c.scratch = scratch.as<float>();
    c.sm_count = sm;
    return c;
}

// One layer's uncompressed cache of `len` entries per KV head, random f16 K/V.
std::unique_ptr<cuda::CudaKvCache> random_layer(int len) {
    auto cache = std::make_unique<cuda::CudaKvCache>(
        KvCacheSpec::uniform(1, kKvHeads, kHeadDim, kHeads / kKvHeads, len));
    const auto f = random_floats(std::size_t{1} << 20, 7, 0.5f);
    std::vector<uint16_t> h(f.size());
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = f32_to_f16(f[i]);
    const std::size_t bytes = std::size_t(len) * kKvHeads * kHeadDim * 2;
    for (__half* p : {cache->k(), cache->v()})
        for (std::size_t off = 0; off < bytes; off += h.size() * 2)
            cuda::check(cudaMemcpy(reinterpret_cast<uint8_t*>(p) + off, h.data(),
                                   std::min(h.size() * 2, bytes - off), cudaMemcpyHostToDevice),
                        "fill");
    std::vector<int32_t> pos(len);
    for (int i = 0; i < len; ++i) pos[i] = i;
    for (int hh = 0; hh < kKvHeads; ++hh) {
        cuda::check(cudaMemcpy(cache->pos() + cache->offset(0, hh), pos.data(), pos.size() * 4,
                               cudaMemcpyHostToDevice),
                    "pos");
        cache->commit_append(0, hh, pos.data(), len);
    }
    return cache;
}

TEST(CudaFlashPerf, DISABLED_PrefillAttention) {
    SNAPDOC_REQUIRE_CUDA();
    int sm = 1;
    cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
    for (int len : {4096, 16384, 100000}) {
        auto cache = random_layer(len);
        // The backend's shape: a 512-row chunk at the end of the rows so far.
        const int n = 512;
        auto q = random_floats(std::size_t(n) * kHeads * kHeadDim, 5);
        std::vector<int32_t> qp(n);
        for (int i = 0; i < n; ++i) qp[i] = len - n + i;
        auto dq = to_device(q), dp = to_device(qp);
        cuda::DeviceBuffer out(q.size() * 4, "out");
        double pairs = 0;  // causal (query, key) pairs per head
        for (int i = 0; i < n; ++i) pairs += qp[i] + 1;
        const double flop = 4.0 * kHeads * kHeadDim * pairs;

        kernels::FlashAttentionArgs f;
        f.q = dq.as<float>();
        f.q_stride = kHeads * kHeadDim;
        f.q_pos = dp.as<int32_t>();
        f.n = n;
        f.n_heads = kHeads;
        f.scale = kScale;
        f.cache = cache->layer_view(0);
        f.out = out.as<float>();
        f.out_stride = kHeads * kHeadDim;
        const double flash = mean_ms([&] { cuda::check(kernels::flash_attention(f, nullptr), "flash"); }, 5);

        cuda::DeviceBuffer scratch = core_attention_scratch(n, len, sm);
        const kernels::AttentionArgs c = core_attention_args(f.q, f.q_pos, n, f.cache, len, f.out, scratch, sm);
        const double core = mean_ms([&] { cuda::check(kernels::attention(c, nullptr), "attention"); }, 5);
        std::printf(
            "PERF flash_prefill L=%-6d n=%d  tensor cores %8.3f ms %7.1f TFLOP/s | CUDA cores %8.3f ms %7.1f "
            "TFLOP/s\n",
            len, n, flash, flop / flash / 1e9, core, flop / core / 1e9);
    }
}

TEST(CudaFlashPerf, DISABLED_WindowScores) {
    SNAPDOC_REQUIRE_CUDA();
    int sm = 1;
    cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
    const int W = 32;
    for (int len : {16384, 100000}) {
        auto cache = random_layer(len);
        auto q = random_floats(std::size_t(W) * kHeads * kHeadDim, 6);
        std::vector<int32_t> qp(W);
        for (int i = 0; i < W; ++i) qp[i] = len - W + i;
        auto dq = to_device(q), dp = to_device(qp);
        const int n_prefix = len - W;
        cuda::DeviceBuffer scores(std::size_t(kHeads) * n_prefix * 4, "scores");

        kernels::FlashWindowScoreArgs f;
        f.q = dq.as<float>();
        f.q_stride = kHeads * kHeadDim;
        f.q_pos = dp.as<int32_t>();
        f.n_window = W;
        f.n_heads = kHeads;
        f.scale = kScale;
        f.cache = cache->layer_view(0);
        f.max_len = len;
        f.n_prefix = n_prefix;
        f.out = scores.as<float>();
        f.sm_count = sm;
        cuda::DeviceBuffer fs(
            std::size_t(kernels::flash_window_scores_scratch_floats(W, kHeads, kKvHeads, len, sm)) * 4,
            "scratch");
        f.scratch = fs.as<float>();
        const double flash =
            mean_ms([&] { cuda::check(kernels::flash_window_scores(f, nullptr), "flash window"); }, 5);

        cuda::DeviceBuffer out(q.size() * 4, "out"), lse(std::size_t(W) * kHeads * 4, "lse");
        cuda::DeviceBuffer scratch = core_attention_scratch(W, len, sm);
        kernels::AttentionArgs a = core_attention_args(f.q, f.q_pos, W, f.cache, len, out.as<float>(), scratch, sm);
        a.lse = lse.as<float>();
        kernels::WindowScoreArgs w;
        w.q = f.q;
        w.q_stride = f.q_stride;
        w.q_pos = f.q_pos;
        w.lse = a.lse;
        w.n_window = W;
        w.n_heads = kHeads;
        w.scale = f.scale;
        w.cache = f.cache;
        w.n_prefix = n_prefix;
        w.out = f.out;
        const double core = mean_ms(
            [&] {
                cuda::check(kernels::attention(a, nullptr), "attention");
                cuda::check(kernels::window_scores(w, nullptr), "window scores");
            },
            5);
        std::printf(
            "PERF flash_window_scores L=%-6d W=%d  tensor cores %8.3f ms (%d key slices) | CUDA cores %8.3f "
            "ms\n",
            len, W, flash, kernels::flash_window_score_splits(W, kHeads, kKvHeads, len, sm), core);
    }
}

}  // namespace
}  // namespace snapdoc
