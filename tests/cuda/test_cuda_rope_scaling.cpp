// Rope scaling on the CUDA backend (issue 13 item 6): llama3 (Llama 3.1's per-pair factors), YaRN
// (NTK-by-parts + attention factor) and LongRoPE (long factors past the original context) against
// the CPU backend, as one kernel at positions up to 128K and as whole tiny models. Both backends take
// their frequencies from rope_frequencies() (engine/model/rope_scaling.h), so what is checked here
// is that the device applies that table and the attention factor as the CPU does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/runtime/cpu/elementwise.h"
#include "engine/session/prefill.h"
#include "engine/session/sampler.h"
#include "kernels/rope.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;
using testing::TinyModelSpec;

RopeScaling llama31_scaling(int head_dim, double theta) {
    RopeScaling s;
    s.kind = RopeScalingKind::Llama3;
    s.factor = 8.0f;
    s.freq_factors = llama3_frequency_factors(head_dim, theta, 8.0, 1.0, 4.0, 8192);
    return s;
}

RopeScaling yarn_scaling(float factor, int original_context) {
    RopeScaling s;
    s.kind = RopeScalingKind::Yarn;
    s.factor = factor;
    s.original_context = original_context;
    s.attention_factor = 0.1f * std::log(factor) + 1.0f;
    return s;
}

struct KernelCase {
    const char* name;
    RopeStyle style;
    double theta;
    RopeScaling scaling;
};

class RopeScalingKernel : public ::testing::TestWithParam<KernelCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

// Fused QKV rows (query heads, then key heads, then V), rotated with the frequency table at
// positions up to 128K; V stays untouched.
TEST_P(RopeScalingKernel, MatchesCpuRope) {
    const KernelCase& c = GetParam();
    const int head_dim = 128, n_heads = 4, n_kv = 2, n = 8;
    const int stride = (n_heads + 2 * n_kv) * head_dim;
    const std::vector<int32_t> pos = {0, 1, 8191, 8192, 32768, 65537, 100003, 131071};
    const RopeFrequencies f = rope_frequencies(head_dim, c.theta, c.scaling, 131072);
    // The table really differs from the unscaled one, and the factor from 1 where the kind has one.
    const RopeFrequencies plain = rope_frequencies(head_dim, c.theta, RopeScaling{}, 131072);
    ASSERT_NE(f.inv_freq, plain.inv_freq);
    const auto x = random_floats(static_cast<std::size_t>(n) * stride, 21);
    auto dx = to_device(x), dp = to_device(pos), df = to_device(f.inv_freq);
    const auto conv = c.style == RopeStyle::AdjacentPairs ? kernels::RopeConvention::AdjacentPairs
                                                          : kernels::RopeConvention::RotateHalf;
    cuda::check(kernels::rope_with_frequencies(dx.as<float>(), stride, n, n_heads + n_kv, head_dim, dp.as<int32_t>(),
                                               df.as<double>(), static_cast<float>(f.attention_factor), conv, nullptr),
                "rope_with_frequencies");
    auto want = x;
    cpu::Rope rope(head_dim, c.style, f);
    rope.prepare(pos.data(), n);
    for (int r = 0; r < n; ++r) rope.apply(want.data() + static_cast<int64_t>(r) * stride, n_heads + n_kv, r);
    const auto got = from_device<float>(dx.get(), x.size());
    EXPECT_LT(nmse(got, want), 1e-10);
    EXPECT_LT(max_abs_diff(got, want), 1e-4);
    for (int r = 0; r < n; ++r)  // V: the last n_kv heads of each row
        for (int i = (n_heads + n_kv) * head_dim; i < stride; ++i)
            ASSERT_EQ(got[static_cast<std::size_t>(r) * stride + i], x[static_cast<std::size_t>(r) * stride + i]);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, RopeScalingKernel,
    ::testing::Values(KernelCase{"llama31_adjacent", RopeStyle::AdjacentPairs, 500000.0, llama31_scaling(128, 500000.0)},
                      KernelCase{"llama31_rotate_half", RopeStyle::RotateHalf, 500000.0, llama31_scaling(128, 500000.0)},
                      KernelCase{"yarn4_from32k_adjacent", RopeStyle::AdjacentPairs, 1e6, yarn_scaling(4.f, 32768)},
                      KernelCase{"yarn4_from32k_rotate_half", RopeStyle::RotateHalf, 1e6, yarn_scaling(4.f, 32768)}),
    [](const auto& info) { return std::string(info.param.name); });

// Whole models: the GGUF (llama3: a rope_freqs tensor) or Hugging Face (rope_scaling in config.json)
// description through the loader, prefill logits and single-token steps vs the CPU backend.
struct ModelCase {
    const char* name;
    TinyModelSpec spec;
    bool hf;
};

TinyModelSpec scaled(const char* arch, int kv_heads, float theta, testing::TinyRopeSpec rope, int context, uint64_t seed) {
    TinyModelSpec s;
    s.arch = arch;
    s.n_layers = 2;
    s.dim = 128;
    s.n_heads = 4;
    s.n_kv_heads = kv_heads;
    s.ffn_dim = 160;
    s.rope_theta = theta;
    s.rope = rope;
    s.context_length = context;
    s.seed = seed;
    return s;
}

std::vector<ModelCase> model_cases() {
    // Original contexts far below the prompt, so the scaled pairs are the ones that rotate.
    const testing::TinyRopeSpec llama3{RopeScalingKind::Llama3, 8.f, 64, 1.f, 4.f};
    const testing::TinyRopeSpec yarn{RopeScalingKind::Yarn, 4.f, 64};
    const testing::TinyRopeSpec longrope{RopeScalingKind::LongRope, 1.f, 64};
    return {
        {"llama3_gguf", scaled("llama", 2, 500000.f, llama3, 512, 31), false},
        {"llama3_hf", scaled("llama", 2, 500000.f, llama3, 512, 32), true},
        {"yarn_gguf", scaled("llama", 2, 1e6f, yarn, 512, 33), false},
        {"yarn_hf", scaled("llama", 1, 1e6f, yarn, 512, 34), true},
        // Phi-3.5: fused qkv / gate_up, long factors because the context (4096) exceeds 64.
        {"longrope_phi3_gguf", scaled("phi3", 4, 10000.f, longrope, 4096, 35), false},
    };
}

class CudaRopeScalingModels : public ::testing::TestWithParam<ModelCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(CudaRopeScalingModels, PrefillAndStepsMatchCpu) {
    const ModelCase& c = GetParam();
    auto tiny = load_tiny(c.spec, DType::F32, c.hf);
    const ModelConfig& cfg = tiny->model->config;
    ASSERT_EQ(cfg.rope_scaling.kind, c.spec.rope.kind);
    auto cpu = make_cpu_backend(*tiny->model);
    BackendOptions o;
    o.max_chunk_rows = 64;
    auto gpu = make_cuda_backend(*tiny->model, o);

    const int L = 200, steps = 6;
    const auto ids = random_ids(L + steps, cfg.vocab_size, 36);
    const auto want = prefill_logits(*cpu, ids, 128);
    auto kv = make_full_kv_cache(*gpu, L + steps);
    std::vector<float> got;
    PrefillOptions opts;
    opts.chunk_rows = 150;
    prefill(*gpu, std::span(ids).first(L), 0, *kv, opts, &got);
    opts.chunk_rows = 1;
    for (int i = L; i < L + steps; ++i) {  // one row per call: the decode attention path
        std::vector<float> step;
        prefill(*gpu, std::span(ids).subspan(i, 1), i, *kv, opts, &step);
        got.insert(got.end(), step.begin(), step.end());
    }
    const double e = nmse(got, want);
    std::printf("%s: logits NMSE %.3g vs cpu\n", c.name, e);
    EXPECT_LT(e, 1e-5);  // f32 weights: only the f16 K/V differ
    EXPECT_GE(argmax_agreement(got, want, cfg.vocab_size), 0.95);

    // The scaling is not a no-op at these positions: the same weights without it compute
    // something else by far more than the tolerance above.
    TinyModelSpec plain_spec = c.spec;
    plain_spec.rope = {};
    auto plain = load_tiny(plain_spec, DType::F32, c.hf);
    const auto unscaled = prefill_logits(*make_cpu_backend(*plain->model), ids, 128);
    EXPECT_GT(nmse(unscaled, want), 1e-3);
}

// The decode step captured as one graph rotates with its own copy of the table (fused with the K/V
// append): greedy tokens through it equal those of the uncaptured composition (run_layer above).
TEST_P(CudaRopeScalingModels, GraphDecodeStepEqualsUncapturedPath) {
    const ModelCase& c = GetParam();
    auto tiny = load_tiny(c.spec, DType::F32, c.hf);
    auto gpu = make_cuda_backend(*tiny->model);
    const auto prompt = random_ids(200, tiny->model->config.vocab_size, 37);
    const int n = 8;
    std::vector<int32_t> runs[2];
    for (int graph : {0, 1}) {
        auto kv = make_full_kv_cache(*gpu, static_cast<int>(prompt.size()) + n);
        std::vector<float> logits = prefill(*gpu, prompt, 0, *kv);
        SamplingParams greedy;
        greedy.temperature = 0.0f;
        Sampler sampler(greedy);
        std::vector<int32_t> history(prompt);
        auto act = gpu->create_activations(1);
        int32_t token = sampler.sample(logits, history);
        for (int i = 0; i < n; ++i) {
            runs[graph].push_back(token);
            history.push_back(token);
            const int32_t pos = static_cast<int32_t>(prompt.size()) + i;
            token = graph ? gpu->decode_next(token, pos, *kv, *act, sampler, history)
                          : gpu->Backend::decode_next(token, pos, *kv, *act, sampler, history);
        }
    }
    EXPECT_EQ(runs[1], runs[0]);
}

INSTANTIATE_TEST_SUITE_P(Kinds, CudaRopeScalingModels, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace snapdoc
