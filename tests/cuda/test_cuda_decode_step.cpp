// The CUDA backend's whole decode step as one captured graph (engine/runtime/cuda/cuda_decode_step.h,
// reached through Backend::decode_next): it produces the same greedy tokens as the uncaptured
// path (the default decode_next composing embed / run_layer / logits over the same backend, host
// argmax) for 40 tokens — on full caches in F32, F16 and Q8_0 weights, through key splits and a
// re-capture when the split count changes, and on ragged compressed caches of both GQA modes
// through DocumentSession::answer. Under the emulation it also counts host syncs (at most one per
// token) and graph launches (one per token, captured once per shape). Mixed with uncaptured steps on
// the same cache it stays right; sampling runs are reproducible; a full cache is refused cleanly.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill.h"
#include "engine/session/sampler.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/token_ids.h"
#ifdef SNAPDOC_CUDA_EMU
#include "cuda_emu/control.h"
#include "cuda_emu/executor.h"
#endif

namespace snapdoc {
namespace {

using namespace cudatest;

// Every call forwarded to `inner` except decode_next, which keeps Backend's default: the
// uncaptured path over the very same CUDA backend.
class UncapturedDecode : public Backend {
public:
    explicit UncapturedDecode(Backend& inner) : b_(inner) {}
    std::string name() const override { return b_.name() + " (uncaptured decode)"; }
    const ModelConfig& config() const override { return b_.config(); }
    std::unique_ptr<KvCache> create_kv_cache(const KvCacheSpec& spec) override { return b_.create_kv_cache(spec); }
    std::unique_ptr<Activations> create_activations(int max_rows) override { return b_.create_activations(max_rows); }
    void embed(const int32_t* tokens, int n, Activations& act, int row0) override { b_.embed(tokens, n, act, row0); }
    void run_layer(int layer, Activations& act, int row0, int n, const int32_t* positions, KvCache& kv,
                   float* q_capture) override {
        b_.run_layer(layer, act, row0, n, positions, kv, q_capture);
    }
    void logits(const Activations& act, int row, float* out) override { b_.logits(act, row, out); }
    void window_scores(const KvCache& kv, int layer, const float* q_window, const int32_t* q_positions, int n_window,
                       int n_prefix, float* out) override {
        b_.window_scores(kv, layer, q_window, q_positions, n_window, n_prefix, out);
    }
    void read_kv(const KvCache& kv, int layer, int head, int first, int n, float* k, float* v) override {
        b_.read_kv(kv, layer, head, first, n, k, v);
    }
    void append_kv(KvCache& kv, int layer, int head, const int32_t* positions, int n, const float* k,
                   const float* v) override {
        b_.append_kv(kv, layer, head, positions, n, k, v);
    }

private:
    Backend& b_;
};

struct SyncCounts {
    int64_t syncs = 0, launches = 0, captures = 0, kernels = 0;  // kernels: launches the executor ran
};
SyncCounts counts_now() {
#ifdef SNAPDOC_CUDA_EMU
    const auto s = cuda_emu::sync_stats();
    return {s.host_syncs, s.graph_launches, s.graph_captures, cuda_emu::executor_stats().launches};
#else
    return {};
#endif
}

testing::TinyModelSpec tiny_spec() {
    testing::TinyModelSpec spec = gqa4_tiny_spec(21);
    spec.context_length = 1024;
    return spec;
}

// Greedy decoding of `n` tokens after `prompt` with decode_next called directly: `graph` picks the
// backend's own step or the default one. Also records the largest number of host syncs one
// captured step took.
struct DecodeRun {
    std::vector<int32_t> tokens;
    int64_t max_syncs_per_step = 0, graph_launches = 0, graph_captures = 0, kernels = 0;
};
DecodeRun decode_greedy(Backend& gpu, const std::vector<int32_t>& prompt, int n, bool graph, int switch_every = 0) {
    auto kv = make_full_kv_cache(gpu, static_cast<int>(prompt.size()) + n);
    PrefillOptions po;
    po.chunk_rows = 256;
    std::vector<float> logits = prefill(gpu, prompt, 0, *kv, po);
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    Sampler sampler(greedy);
    std::vector<int32_t> history(prompt);
    auto act = gpu.create_activations(1);
    DecodeRun r;
    int32_t token = sampler.sample(logits, history);
    const SyncCounts start = counts_now();
    for (int i = 0; i < n; ++i) {
        r.tokens.push_back(token);
        history.push_back(token);
        const bool use_graph = switch_every > 0 ? (i / switch_every) % 2 == 0 : graph;
        const int32_t pos = static_cast<int32_t>(prompt.size()) + i;
        const SyncCounts before = counts_now();
        token = use_graph ? gpu.decode_next(token, pos, *kv, *act, sampler, history)
                          : gpu.Backend::decode_next(token, pos, *kv, *act, sampler, history);
        const SyncCounts after = counts_now();
        if (use_graph) r.max_syncs_per_step = std::max(r.max_syncs_per_step, after.syncs - before.syncs);
    }
    const SyncCounts end = counts_now();
    r.graph_launches = end.launches - start.launches;
    r.graph_captures = end.captures - start.captures;
    r.kernels = end.kernels - start.kernels;
    return r;
}

struct StepCase {
    const char* name;
    DType dtype;
    int prompt;
    int captures;  // split-count regimes the lengths pass through
    int layers;
};

class CudaDecodeStepModels : public ::testing::TestWithParam<StepCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(CudaDecodeStepModels, GraphStepEqualsUncapturedPathOver40Tokens) {
    testing::TinyModelSpec spec = tiny_spec();
    spec.n_layers = GetParam().layers;
    auto tiny = load_tiny(spec, GetParam().dtype);
    auto gpu = make_cuda_backend(*tiny->model);
    const auto prompt = random_ids(GetParam().prompt, tiny->model->config.vocab_size, 4);
    const int n = 40;
    const DecodeRun graph = decode_greedy(*gpu, prompt, n, true);
    const DecodeRun plain = decode_greedy(*gpu, prompt, n, false);
    EXPECT_EQ(graph.tokens, plain.tokens);
#ifdef SNAPDOC_CUDA_EMU
    EXPECT_LE(graph.max_syncs_per_step, 1) << "host syncs in one captured decode step";
    EXPECT_EQ(graph.graph_launches, n);
    EXPECT_EQ(plain.graph_launches, 0);
    // One capture per split-count regime the lengths pass through (the long prompt crosses one).
    EXPECT_EQ(graph.graph_captures, GetParam().captures);
    std::printf("%s: %lld capture(s) for %d tokens, at most %lld host sync per token; kernel launches per token "
                "(cuBLAS calls aside) %.1f captured, %.1f uncaptured\n",
                GetParam().name, static_cast<long long>(graph.graph_captures), n,
                static_cast<long long>(graph.max_syncs_per_step), double(graph.kernels) / n, double(plain.kernels) / n);
#endif
}

INSTANTIATE_TEST_SUITE_P(Models, CudaDecodeStepModels,
                         // 500 + 40 keys: 1 key split, then 2 from 512 keys on (a second capture); one
                         // layer keeps the long prefill short under the emulation.
                         ::testing::Values(StepCase{"f32_split_kv", DType::F32, 500, 2, 1},
                                           StepCase{"f16", DType::F16, 60, 1, 3}, StepCase{"q8_0", DType::Q8_0, 60, 1, 3}),
                         [](const auto& info) { return std::string(info.param.name); });

class CudaDecodeStepTest : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        tiny = load_tiny(tiny_spec(), DType::F32);
        gpu = make_cuda_backend(*tiny->model);
        vocab = tiny->model->config.vocab_size;
    }
    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> gpu;
    int vocab = 0;
};

// Uncaptured steps between captured ones append behind the graph's back: the device counters are
// uploaded again and the tokens stay those of the uncaptured path.
TEST_F(CudaDecodeStepTest, MixedWithUncapturedStepsOnTheSameCache) {
    const auto prompt = random_ids(50, vocab, 8);
    const DecodeRun plain = decode_greedy(*gpu, prompt, 36, false);
    const DecodeRun mixed = decode_greedy(*gpu, prompt, 36, true, 5);
    EXPECT_EQ(mixed.tokens, plain.tokens);
}

// Caches of one shape made and freed in turn (as every answer does): a new cache may get some of a
// freed one's buffers back and not others, so the graph must be recaptured unless all of them match.
TEST_F(CudaDecodeStepTest, CachesMadeAndFreedInTurn) {
    for (int round = 0; round < 4; ++round) {
        const auto prompt = random_ids(30, vocab, 20 + round);
        const DecodeRun graph = decode_greedy(*gpu, prompt, 12, true);
        const DecodeRun plain = decode_greedy(*gpu, prompt, 12, false);
        EXPECT_EQ(graph.tokens, plain.tokens) << "round " << round;
    }
}

// Ragged compressed caches (both GQA modes, adaptive per-head budgets) through DocumentSession::answer,
// i.e. generate.cpp's decode_loop: the same 40 tokens as the uncaptured path.
TEST_F(CudaDecodeStepTest, CompressedCacheAnswersEqualUncapturedPath) {
    UncapturedDecode plain_backend(*gpu);
    DocumentSession graph_session(*gpu), plain_session(plain_backend);
    const auto doc = random_ids(200, vocab, 1), q = random_ids(12, vocab, 2);
    for (DocumentSession* s : {&graph_session, &plain_session}) {
        s->prefill_document(doc);
        s->set_question(q, 16);
    }
    for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead}) {
        SnapKvConfig cfg;
        cfg.budget = 64;
        cfg.window = 16;
        cfg.gqa = gqa;
        cfg.policy = BudgetPolicy::Adaptive;
        const auto sel = graph_session.select(cfg);
        ASSERT_TRUE(sel->compressed);
        [[maybe_unused]] const SyncCounts before = counts_now();
        const auto a = graph_session.answer(*sel, testing::greedy_request(40));
        [[maybe_unused]] const SyncCounts mid = counts_now();
        const auto b = plain_session.answer(*sel, testing::greedy_request(40));
        [[maybe_unused]] const SyncCounts after = counts_now();
        ASSERT_EQ(a.tokens.size(), 40u);
        EXPECT_EQ(a.tokens, b.tokens) << (gqa == GqaMode::KvHead ? "kv-head" : "query-head");
#ifdef SNAPDOC_CUDA_EMU
        EXPECT_EQ(mid.launches - before.launches, 39);  // the first token comes from the prompt's logits
        EXPECT_EQ(after.launches - mid.launches, 0);
#endif
    }
}

// Sampling on the device through generate(): a seeded run repeats itself exactly; a repetition
// penalty (host-side history) keeps the uncaptured path.
TEST_F(CudaDecodeStepTest, SeededSamplingRepeatsAndPenaltyFallsBack) {
    GenerationRequest r;
    r.prompt = random_ids(30, vocab, 9);
    r.max_new_tokens = 32;
    r.stop_at_eos = false;
    r.sampling.temperature = 0.9f;
    r.sampling.top_k = 20;
    r.sampling.top_p = 0.9f;
    r.sampling.min_p = 0.0f;
    r.sampling.seed = 3;
    [[maybe_unused]] const SyncCounts before = counts_now();
    const auto a = generate(*gpu, r);
    const auto b = generate(*gpu, r);
    [[maybe_unused]] const SyncCounts mid = counts_now();
    ASSERT_EQ(a.tokens.size(), 32u);
    EXPECT_EQ(a.tokens, b.tokens);
    for (int32_t t : a.tokens) EXPECT_TRUE(t >= 0 && t < vocab);
    r.sampling.repetition_penalty = 1.3f;
    const auto c = generate(*gpu, r);
    [[maybe_unused]] const SyncCounts after = counts_now();
    EXPECT_EQ(c.tokens.size(), 32u);
#ifdef SNAPDOC_CUDA_EMU
    EXPECT_EQ(mid.launches - before.launches, 2 * 31);
    EXPECT_EQ(after.launches - mid.launches, 0);
#endif
}

// A cache without room is refused before anything runs, and stays as it was.
TEST_F(CudaDecodeStepTest, FullCacheIsRefused) {
    const auto prompt = random_ids(20, vocab, 10);
    auto kv = make_full_kv_cache(*gpu, 21);
    const std::vector<float> logits = prefill(*gpu, prompt, 0, *kv);
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    Sampler sampler(greedy);
    auto act = gpu->create_activations(1);
    std::vector<int32_t> history(prompt);
    const int32_t t1 = gpu->decode_next(argmax(logits), 20, *kv, *act, sampler, history);
    EXPECT_TRUE(t1 >= 0 && t1 < vocab);
    EXPECT_EQ(kv->length(0, 0), 21);
    EXPECT_THROW(gpu->decode_next(t1, 21, *kv, *act, sampler, history), Error);
    EXPECT_EQ(kv->length(0, 0), 21);
    EXPECT_THROW(gpu->decode_next(vocab, 21, *kv, *act, sampler, history), Error);  // not a token
}

}  // namespace
}  // namespace snapdoc
