// The whole CUDA backend against the CPU backend on tiny random-weight models: logits of a chunked
// prefill, single-token steps over long rows (the split-KV decode path), read_kv/append_kv, window
// scores, and the errors a user can cause.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "engine/runtime/cuda/device_weights.h"
#include "engine/session/prefill.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#ifdef SNAPDOC_CUDA_EMU
#include "cuda_emu/control.h"
#endif

namespace snapdoc {
namespace {
// The CPU reference runs the exact f32 prefill: its default 8-bit integer prefill (issue 25) is not
// what the CUDA kernels compute, and the comparisons' tolerances are for the exact path.
BackendOptions exact_cpu_options() {
    BackendOptions o;
    o.exact_prefill = true;
    return o;
}

using namespace cudatest;
using testing::TinyModelSpec;

struct ModelCase {
    std::string name;
    TinyModelSpec spec;
    DType dtype;
    bool hf;
    double nmse;  // allowed normalised error of all logits vs the CPU backend
};

TinyModelSpec spec_of(int layers, int dim, int heads, int kv_heads, int ffn, uint64_t seed) {
    TinyModelSpec s;
    s.n_layers = layers;
    s.dim = dim;
    s.n_heads = heads;
    s.n_kv_heads = kv_heads;
    s.ffn_dim = ffn;
    s.seed = seed;
    return s;
}

TinyModelSpec with_rope(TinyModelSpec s, float theta, float linear_scale) {
    s.rope_theta = theta;
    s.rope_linear_scale = linear_scale;
    return s;
}

// F32 files keep f32 weights on the GPU (tiny), so only the f16 KV cache differs from the CPU;
// F16/Q8_0 (-> f16) and BF16 files also round the GEMM inputs to the weight type.
std::vector<ModelCase> model_cases() {
    return {
        {"hd16_gqa2_f32", spec_of(2, 64, 4, 2, 96, 1), DType::F32, false, 1e-5},
        {"hd16_gqa2_f32_hf", spec_of(2, 64, 4, 2, 96, 1), DType::F32, true, 1e-5},
        {"hd64_gqa4_f16", spec_of(2, 256, 4, 1, 384, 2), DType::F16, false, 1e-4},
        {"hd128_mha_bf16", spec_of(2, 512, 4, 4, 640, 3), DType::BF16, false, 3e-3},
        {"hd32_gqa8_q8", spec_of(3, 256, 8, 1, 352, 4), DType::Q8_0, false, 1e-4},
        // Long-context RoPE bases and linear position scaling (the scaling the kernels implement).
        {"hd32_gqa2_theta1e6_f32", with_rope(spec_of(2, 128, 4, 2, 160, 5), 1e6f, 1.f), DType::F32, false, 1e-5},
        {"hd32_gqa2_theta1e6_linear4_f32_hf", with_rope(spec_of(2, 128, 4, 2, 160, 6), 1e6f, 4.f), DType::F32, true, 1e-5},
    };
}

class CudaBackendModels : public ::testing::TestWithParam<ModelCase> {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        tiny = load_tiny(GetParam().spec, GetParam().dtype, GetParam().hf);
        cpu = make_cpu_backend(*tiny->model, exact_cpu_options());
        BackendOptions o;
        o.max_chunk_rows = 48;  // several internal chunks per prefill call
        gpu = make_cuda_backend(*tiny->model, o);
    }
    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> cpu, gpu;
};

TEST_P(CudaBackendModels, PrefillLogitsMatchCpu) {
    const int vocab = tiny->model->config.vocab_size;
    const auto ids = random_ids(150, vocab, 5);
    const auto want = prefill_logits(*cpu, ids, 64);
    const auto got = prefill_logits(*gpu, ids, 100);  // 100-row calls split into 48-row chunks inside
    const double e = nmse(got, want);
    std::printf("%s: logits NMSE %.3g, max |diff| %.4f\n", GetParam().name.c_str(), e, max_abs_diff(got, want));
    EXPECT_LT(e, GetParam().nmse);
    EXPECT_GE(argmax_agreement(got, want, vocab), 0.95);
}

// Prompt then one token per call: rows of up to 400 entries go through the split-KV path.
TEST_P(CudaBackendModels, TokenByTokenMatchesCpuPrefill) {
    const int vocab = tiny->model->config.vocab_size;
    const auto ids = random_ids(400, vocab, 6);
    const auto want = prefill_logits(*cpu, ids, 128);
    auto kv = make_full_kv_cache(*gpu, 400);
    PrefillOptions opts;
    opts.chunk_rows = 300;
    std::vector<float> got;
    prefill(*gpu, std::span(ids).first(300), 0, *kv, opts, &got);
    for (int i = 300; i < 400; ++i) {
        std::vector<float> step;
        opts.chunk_rows = 1;
        prefill(*gpu, std::span(ids).subspan(i, 1), i, *kv, opts, &step);
        got.insert(got.end(), step.begin(), step.end());
    }
    EXPECT_LT(nmse(got, want), GetParam().nmse);
}

INSTANTIATE_TEST_SUITE_P(Models, CudaBackendModels, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return info.param.name; });

class CudaBackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        tiny = load_tiny(spec_of(2, 128, 4, 2, 160, 7), DType::F32);
        cpu = make_cpu_backend(*tiny->model, exact_cpu_options());
        gpu = make_cuda_backend(*tiny->model);
    }
    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> cpu, gpu;
};

TEST_F(CudaBackendTest, ReadKvMatchesCpuAndAppendKvRoundTrips) {
    const auto ids = random_ids(77, tiny->model->config.vocab_size, 8);
    auto kc = make_full_kv_cache(*cpu, 77), kg = make_full_kv_cache(*gpu, 77);
    prefill(*cpu, ids, 0, *kc);
    prefill(*gpu, ids, 0, *kg);
    const int hd = tiny->model->config.head_dim;
    for (int layer : {0, 1})
        for (int head : {0, 1}) {
            std::vector<float> k1(40 * hd), v1(40 * hd), k2(40 * hd), v2(40 * hd);
            cpu->read_kv(*kc, layer, head, 30, 40, k1.data(), v1.data());
            gpu->read_kv(*kg, layer, head, 30, 40, k2.data(), v2.data());
            EXPECT_LT(nmse(k2, k1), 1e-6);  // f16 storage
            EXPECT_LT(nmse(v2, v1), 1e-6);
            EXPECT_EQ(kg->positions(layer, head), kc->positions(layer, head));
            // Values read from the device are f16-exact, so they survive a round trip bit for bit.
            auto fresh = gpu->create_kv_cache(KvCacheSpec::uniform(2, 2, hd, 2, 50));
            std::vector<int32_t> pos(40);
            for (int i = 0; i < 40; ++i) pos[i] = 30 + i;
            gpu->append_kv(*fresh, layer, head, pos.data(), 40, k2.data(), v2.data());
            std::vector<float> k3(40 * hd), v3(40 * hd);
            gpu->read_kv(*fresh, layer, head, 0, 40, k3.data(), v3.data());
            EXPECT_EQ(k3, k2);
            EXPECT_EQ(v3, v2);
            EXPECT_EQ(fresh->positions(layer, head), pos);
        }
}

TEST_F(CudaBackendTest, WindowScoresMatchCpu) {
    const auto& cfg = tiny->model->config;
    const int L = 300, W = 24;
    const auto ids = random_ids(L, cfg.vocab_size, 9);
    std::vector<float> sc, sg;
    for (Backend* b : {cpu.get(), gpu.get()}) {
        auto kv = make_full_kv_cache(*b, L);
        auto act = b->create_activations(L);
        std::vector<int32_t> pos(L);
        for (int i = 0; i < L; ++i) pos[i] = i;
        b->embed(ids.data(), L, *act, 0);
        std::vector<float> q(static_cast<std::size_t>(L) * cfg.q_dim());
        b->run_layer(0, *act, 0, L, pos.data(), *kv, q.data());
        std::vector<float> out(static_cast<std::size_t>(cfg.n_heads) * (L - W));
        b->window_scores(*kv, 0, q.data() + static_cast<std::size_t>(L - W) * cfg.q_dim(), pos.data() + L - W, W, L - W,
                         out.data());
        (b == cpu.get() ? sc : sg) = out;
    }
    EXPECT_LT(nmse(sg, sc), 1e-5);
}

TEST_F(CudaBackendTest, ClearErrors) {
    auto kv = make_full_kv_cache(*gpu, 4);
    const auto ids = random_ids(5, tiny->model->config.vocab_size, 10);
    EXPECT_THROW(prefill(*gpu, ids, 0, *kv), Error);  // 5 tokens into 4 entries: "KV cache is full"
    auto act = gpu->create_activations(2);
    const int32_t bad = tiny->model->config.vocab_size;
    EXPECT_THROW(gpu->embed(&bad, 1, *act, 0), Error);
    auto cpu_kv = make_full_kv_cache(*cpu, 4);
    int32_t p = 0;
    EXPECT_THROW(gpu->run_layer(0, *act, 0, 1, &p, *cpu_kv, nullptr), Error);
    try {
        gpu->create_activations(1 << 30);  // 2^30 rows x 128 x 4 bytes = 512 GiB
        FAIL() << "expected an out-of-memory error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
    }
}

// Out of memory is predicted before anything is allocated and refused with the numbers, and the
// failed request leaves the device as it was. A KV cache one entry per head larger than the free
// memory runs on a GPU as well as under the emulation; there the emulated device is also shrunk
// below what a model needs, to check the model's own prediction.
TEST(CudaMemory, OutOfMemoryIsPredictedAndRefusedWithNumbers) {
    SNAPDOC_REQUIRE_CUDA();
    auto t = load_tiny(spec_of(2, 256, 4, 2, 384, 5), DType::F32);
    auto gpu = make_cuda_backend(*t->model);
    const int hd = t->model->config.head_dim;
    const int64_t free = cuda::memory_info().free;
    const int64_t per_entry = int64_t{hd} * 2 * 2 + 4;  // f16 K and V, int32 position
    const int cap = static_cast<int>(std::min<int64_t>(free / (2 * 2 * per_entry) + 1, INT32_MAX / 8));
    const KvCacheSpec spec = KvCacheSpec::uniform(2, 2, hd, 2, cap);
    const int64_t need = cuda::CudaKvCache::device_bytes(spec);
    ASSERT_GT(need, free);
    try {
        gpu->create_kv_cache(spec);
        FAIL() << "expected an out-of-memory refusal for " << cuda::mib(need);
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("out of GPU memory: the KV cache"), std::string::npos) << msg;
        EXPECT_NE(msg.find("needs " + cuda::mib(need)), std::string::npos) << msg;
        EXPECT_NE(msg.find(cuda::mib(free) + " free"), std::string::npos) << msg;
    }
    EXPECT_EQ(cuda::memory_info().free, free);  // nothing was half built
#ifdef SNAPDOC_CUDA_EMU
    const cuda_emu::DeviceConfig saved = cuda_emu::device_config();
    cuda_emu::DeviceConfig small = saved;
    small.memory_bytes = cuda_emu::memory_stats().allocated + (int64_t{200} << 20);  // 200 MiB free < the 256 MiB reserve
    ASSERT_TRUE(cuda_emu::set_device_config(small));
    const int64_t weights = cuda::device_weight_bytes(*t->model, kernels::Dt::F32);
    try {
        make_cuda_backend(*t->model);
        ADD_FAILURE() << "expected the model to be refused on a 200 MiB device";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("out of GPU memory: the model (" + cuda::mib(weights) + " of F32 weights"), std::string::npos) << msg;
        EXPECT_NE(msg.find("200.0 MiB free"), std::string::npos) << msg;
    }
    EXPECT_EQ(cuda_emu::memory_stats().allocated + (int64_t{200} << 20), small.memory_bytes);
    ASSERT_TRUE(cuda_emu::set_device_config(saved));
#endif
}

// Mistral's sliding window on the CUDA path: the flash prefill kernel masks it, and decode rows past
// it go through the same kernel. A prompt well past the window, in chunks and then a row per call,
// matches the CPU backend; the same model without the window answers differently there, so the
// comparison would catch a missing mask.
TEST(CudaSlidingWindow, MatchesCpuPastTheWindow) {
    SNAPDOC_REQUIRE_CUDA();
    TinyModelSpec spec = spec_of(2, 64, 4, 2, 96, 17);
    spec.sliding_window = 16;
    auto t = load_tiny(spec, DType::F32);
    auto gpu = make_cuda_backend(*t->model);
    auto cpu = make_cpu_backend(*t->model, exact_cpu_options());
    const auto ids = random_ids(60, spec.vocab_size, 4);
    const auto want = prefill_logits(*cpu, ids, 64);
    EXPECT_LT(nmse(prefill_logits(*gpu, ids, 24), want), 1e-5);

    auto kv = make_full_kv_cache(*gpu, 60);
    PrefillOptions opts;
    opts.chunk_rows = 20;
    std::vector<float> got;
    prefill(*gpu, std::span(ids).first(20), 0, *kv, opts, &got);
    for (int i = 20; i < 60; ++i) {
        std::vector<float> step;
        opts.chunk_rows = 1;
        prefill(*gpu, std::span(ids).subspan(i, 1), i, *kv, opts, &step);
        got.insert(got.end(), step.begin(), step.end());
    }
    EXPECT_LT(nmse(got, want), 1e-5);

    spec.sliding_window = 0;
    auto unwindowed = load_tiny(spec, DType::F32);
    EXPECT_GT(nmse(prefill_logits(*make_cpu_backend(*unwindowed->model, exact_cpu_options()), ids, 64), want), 1e-3);
}

// Pure host logic: runs (and must pass) without a GPU too.
TEST(CudaWeights, DtypeRule) {
    for (DType d : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
        auto t = load_tiny(spec_of(1, 64, 4, 2, 96, 11), d);
        const DType want = d == DType::Q8_0 ? DType::F16 : d;
        EXPECT_EQ(cuda_weight_dtype(*t->model), want);
    }
    auto t = load_tiny(spec_of(1, 64, 4, 2, 96, 11), DType::F32);
    CudaBackendOptions o;
    o.keep_f32_max_bytes = 0;  // as if the model were large
    EXPECT_EQ(cuda_weight_dtype(*t->model, o), DType::BF16);
}

}  // namespace
}  // namespace snapdoc
