// Perf mode of the CUDA op tests (ggml test-backend-ops style): timings with achieved TFLOP/s and
// GB/s at real model shapes (Mistral-7B: 32 query / 8 KV heads, head_dim 128, dim 4096, FFN 14336)
// on random device data. DISABLED_ so ctest never runs them; scripts/gpu-check.sh runs them with
// --gtest_also_run_disabled_tests. Numbers, never pass/fail.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "engine/model/model.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "engine/session/document_session.h"
#include "engine/session/generate.h"
#include "engine/runtime/cuda/gemm.h"
#include "kernels/attention.h"
#include "kernels/window_scores.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

// Fills `bytes` of device memory with copies of one random block (fast for gigabytes).
void fill_random(void* dst, std::size_t bytes, uint32_t seed) {
    const std::size_t block = std::min<std::size_t>(bytes, std::size_t{4} << 20);
    auto f = random_floats(block / 4 + 1, seed, 0.5f);
    std::vector<uint16_t> h(block / 2);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = f32_to_f16(f[i]);  // f16 bit patterns are fine bf16 too
    for (std::size_t off = 0; off < bytes; off += block)
        cuda::check(cudaMemcpy(static_cast<uint8_t*>(dst) + off, h.data(), std::min(block, bytes - off), cudaMemcpyHostToDevice),
                    "fill");
}

class CudaPerf : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
        std::printf("device: %s\n", cuda_device_description(0).c_str());
    }
    int sm = 1;
};

TEST_F(CudaPerf, DISABLED_GemmBf16) {
    cuda::Gemm gemm(nullptr);
    struct G {
        const char* name;
        int in, out;
    };
    for (const G g : {G{"qkv", 4096, 6144}, G{"o", 4096, 4096}, G{"gate_up", 4096, 28672}, G{"down", 14336, 4096}}) {
        cuda::DeviceBuffer w(std::size_t(g.in) * g.out * 2, "w");
        fill_random(w.get(), w.bytes(), 1);
        for (int n : {1, 512, 4096}) {
            cuda::DeviceBuffer x(std::size_t(n) * g.in * 2, "x"), y(std::size_t(n) * g.out * 4, "y");
            fill_random(x.get(), x.bytes(), 2);
            const double ms = mean_ms([&] { gemm(w.get(), x.get(), kernels::Dt::BF16, n, g.in, g.out, y.as<float>()); });
            std::printf("PERF gemm_bf16 %-8s n=%-5d %8.3f ms  %7.1f TFLOP/s  %7.1f GB/s (weights)\n", g.name, n, ms,
                        2.0 * n * g.in * g.out / ms / 1e9, double(w.bytes()) / ms / 1e6);
        }
    }
}

// One layer's attention: 32 query heads over 8 KV heads, head_dim 128.
struct LayerSetup {
    std::unique_ptr<cuda::CudaKvCache> cache;
    LayerSetup(int len) {
        cache = std::make_unique<cuda::CudaKvCache>(KvCacheSpec::uniform(1, 8, 128, 4, len));
        fill_random(cache->k(), std::size_t(len) * 8 * 128 * 2, 3);
        fill_random(cache->v(), std::size_t(len) * 8 * 128 * 2, 4);
        std::vector<int32_t> pos(len);
        for (int i = 0; i < len; ++i) pos[i] = i;
        for (int h = 0; h < 8; ++h) {
            cuda::check(cudaMemcpy(cache->pos() + cache->offset(0, h), pos.data(), pos.size() * 4, cudaMemcpyHostToDevice), "pos");
            cache->commit_append(0, h, pos.data(), len);
        }
    }
};

TEST_F(CudaPerf, DISABLED_AttentionPrefillAndDecode) {
    for (int len : {2048, 4096, 16384, 100000}) {
        LayerSetup s(len);
        const int rows = len <= 16384 ? len : 0;  // full causal prefill where it is quick enough to time
        for (int n : {rows, 1}) {
            if (n == 0) continue;
            auto q = random_floats(std::size_t(n) * 32 * 128, 5);
            std::vector<int32_t> qp(n);
            for (int i = 0; i < n; ++i) qp[i] = len - n + i;
            auto dq = to_device(q), dp = to_device(qp);
            cuda::DeviceBuffer out(q.size() * 4, "out");
            const int64_t sf = kernels::attention_scratch_floats(n, 32, 8, 128, len, sm);
            cuda::DeviceBuffer scratch(std::size_t(std::max<int64_t>(sf, 1)) * 4, "scratch");
            kernels::AttentionArgs a;
            a.q = dq.as<float>();
            a.q_stride = 32 * 128;
            a.q_pos = dp.as<int32_t>();
            a.n = n;
            a.n_heads = 32;
            a.scale = 0.088388f;
            a.cache = s.cache->layer_view(0);
            a.max_len = len;
            a.out = out.as<float>();
            a.out_stride = 32 * 128;
            a.scratch = scratch.as<float>();
            a.sm_count = sm;
            const double ms = mean_ms([&] { cuda::check(kernels::attention(a, nullptr), "attention"); }, n == 1 ? 20 : 2);
            if (n == 1)
                std::printf("PERF attn_decode L=%-6d %8.3f ms  %7.1f GB/s (K+V f16)  splits %d\n", len, ms,
                            double(len) * 8 * 128 * 2 * 2 / ms / 1e6, kernels::plan_attention(1, 32, 8, len, sm).n_split);
            else
                std::printf("PERF attn_prefill L=%-6d %8.3f ms  %7.2f TFLOP/s (causal, 32x128 heads, one layer)\n", len, ms,
                            4.0 * 32 * 128 * double(len) * len / 2 / ms / 1e9);
        }
    }
}

TEST_F(CudaPerf, DISABLED_WindowScores) {
    for (int len : {16384, 100000}) {
        LayerSetup s(len);
        const int W = 32;
        auto q = random_floats(std::size_t(W) * 32 * 128, 6);
        std::vector<int32_t> qp(W);
        for (int i = 0; i < W; ++i) qp[i] = len - W + i;
        auto dq = to_device(q), dp = to_device(qp);
        cuda::DeviceBuffer out(q.size() * 4, "out"), lse(std::size_t(W) * 32 * 4, "lse"),
            scores(std::size_t(32) * (len - W) * 4, "scores");
        const int64_t sf = kernels::attention_scratch_floats(W, 32, 8, 128, len, sm);
        cuda::DeviceBuffer scratch(std::size_t(std::max<int64_t>(sf, 1)) * 4, "scratch");
        kernels::AttentionArgs a;
        a.q = dq.as<float>();
        a.q_stride = 32 * 128;
        a.q_pos = dp.as<int32_t>();
        a.n = W;
        a.n_heads = 32;
        a.scale = 0.088388f;
        a.cache = s.cache->layer_view(0);
        a.max_len = len;
        a.out = out.as<float>();
        a.out_stride = 32 * 128;
        a.lse = lse.as<float>();
        a.scratch = scratch.as<float>();
        a.sm_count = sm;
        kernels::WindowScoreArgs w;
        w.q = dq.as<float>();
        w.q_stride = 32 * 128;
        w.q_pos = dp.as<int32_t>();
        w.lse = lse.as<float>();
        w.n_window = W;
        w.n_heads = 32;
        w.scale = a.scale;
        w.cache = a.cache;
        w.n_prefix = len - W;
        w.out = scores.as<float>();
        const double ms = mean_ms([&] {
            cuda::check(kernels::attention(a, nullptr), "attention");
            cuda::check(kernels::window_scores(w, nullptr), "window_scores");
        });
        std::printf("PERF window_scores L=%-6d W=%d %8.3f ms per layer (lse pass + score pass)\n", len, W, ms);
    }
}


int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
}

// End to end on a model file (e.g. `snapdoc-bench synthetic --out FILE`): full-KV generation on each
// backend in SNAPDOC_BENCH_DEVICES (default cuda,cpu), then SnapKV sessions on CUDA at budgets
// 1024/2048. SNAPDOC_BENCH_MODEL names the file (skipped without it), SNAPDOC_BENCH_PROMPT the
// prompt length (default 1024), SNAPDOC_BENCH_GEN the generated tokens (default 64).
TEST_F(CudaPerf, DISABLED_EndToEndModel) {
    const char* path = std::getenv("SNAPDOC_BENCH_MODEL");
    if (!path || !*path) GTEST_SKIP() << "set SNAPDOC_BENCH_MODEL to a model file";
    const Model model = load_model(path);
    const int prompt = env_int("SNAPDOC_BENCH_PROMPT", 1024), gen = env_int("SNAPDOC_BENCH_GEN", 64);
    std::mt19937 rng(1);
    std::vector<int32_t> ids(prompt);
    for (auto& x : ids) x = 3 + static_cast<int32_t>(rng() % (model.config.vocab_size - 3));
    GenerationRequest req;
    req.prompt = ids;
    req.max_new_tokens = gen;
    req.sampling.temperature = 0;
    req.stop_at_eos = false;
    const std::string devices = std::getenv("SNAPDOC_BENCH_DEVICES") ? std::getenv("SNAPDOC_BENCH_DEVICES") : "cuda,cpu";
    std::stringstream ss(devices);
    std::string dev;
    const double params = static_cast<double>(model.parameter_count());
    while (std::getline(ss, dev, ',')) {
        const int64_t free_before = cuda::memory_info().free;
        auto backend = make_backend(model, {}, dev);
        const auto r = generate(*backend, req);
        const int64_t used = free_before - cuda::memory_info().free;
        std::printf("PERF e2e %-4s %s prompt %d: prefill %.3f s (%.0f tok/s, %.1f TFLOP/s in GEMMs), decode %.1f tok/s, "
                    "GPU memory held %s\n",
                    dev.c_str(), model.config.name.c_str(), prompt, r.prefill_seconds, prompt / r.prefill_seconds,
                    2.0 * params * prompt / r.prefill_seconds / 1e12, r.tokens.size() / r.decode_seconds,
                    cuda::mib(used).c_str());
    }
    auto backend = make_backend(model, {}, "cuda");
    DocumentSession session(*backend);
    session.prefill_document(std::span(ids).first(prompt - 32));
    session.set_question(std::span(ids).last(32), 32);
    for (int budget : {1024, 2048}) {
        if (budget >= prompt) continue;
        SnapKvConfig cfg;
        cfg.budget = budget;
        GenerationRequest a = req;
        a.prompt.clear();
        const auto r = session.answer(*session.select(cfg), a);
        std::printf("PERF snapkv cuda budget %d prompt %d: decode %.1f tok/s, compressed KV %s (full %s)\n", budget, prompt,
                    r.tokens.size() / r.decode_seconds, cuda::mib(r.kv_bytes_compressed).c_str(),
                    cuda::mib(r.kv_bytes_full).c_str());
    }
}

}  // namespace
}  // namespace snapdoc
