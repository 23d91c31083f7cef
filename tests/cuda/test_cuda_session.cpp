// SnapKV document sessions on the CUDA backend (DocumentSession works with any Backend): window
// scores and kept sets match the CPU backend (ties aside), the answer's first logits match, and a
// re-snap for a later question equals a fresh prefill of the same prompt.
#include <gtest/gtest.h>

#include "engine/session/document_session.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/token_ids.h"

namespace snapdoc {
namespace {

using namespace cudatest;

using testing::concat;
GenerationRequest greedy(int n) { return testing::greedy_request(n); }

class CudaSessionTest : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        const testing::TinyModelSpec spec = gqa4_tiny_spec(21);
        tiny = load_tiny(spec, DType::F32);
        cpu = make_cpu_backend(*tiny->model);
        gpu = make_cuda_backend(*tiny->model);
        doc = random_ids(300, spec.vocab_size, 1);
        q1 = random_ids(12, spec.vocab_size, 2);
        q2 = random_ids(9, spec.vocab_size, 3);
    }
    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> cpu, gpu;
    std::vector<int32_t> doc, q1, q2;
};

TEST_F(CudaSessionTest, ScoresAndKeptSetsMatchCpu) {
    DocumentSessionOptions o;
    o.chunk_rows = 128;
    DocumentSession sc(*cpu, o), sg(*gpu, o);
    sc.prefill_document(doc);
    sg.prefill_document(doc);
    const int window = 16;
    sc.set_question(q1, window);
    sg.set_question(q1, window);
    const auto& a = sc.window_scores();
    const auto& b = sg.window_scores();
    for (int l = 0; l < a.n_layers; ++l) EXPECT_LT(nmse(b.layers[l], a.layers[l]), 1e-5) << "layer " << l;
    EXPECT_LT(nmse(sg.last_logits(), sc.last_logits()), 1e-5);
    for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead})
        for (auto pooling : {Pooling::Max, Pooling::Avg}) {
            SnapKvConfig cfg;
            cfg.budget = 64;
            cfg.window = window;
            cfg.gqa = gqa;
            cfg.pooling = pooling;
            const auto selc = sc.select(cfg);
            const auto selg = sg.select(cfg);
            expect_same_kept_ties_aside(*selg, *selc, 2e-3 * window);
        }
}

// Decoding on the ragged compressed cache, many tokens: both backends answer from the same
// selection (so the caches hold the same positions) for 40 greedy tokens; the logits of every
// step agree and the tokens agree up to a near tie (expect_greedy_agrees). Both GQA modes (query-head
// mode repeats KV heads in the cache), uniform and adaptive (per-head counts differ) budgets.
TEST_F(CudaSessionTest, CompressedCacheDecodingMatchesCpuOver40Tokens) {
    DocumentSession sc(*cpu), sg(*gpu);
    sc.prefill_document(doc);
    sg.prefill_document(doc);
    sc.set_question(q1, 16);
    sg.set_question(q1, 16);
    for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead})
        for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Adaptive}) {
            SnapKvConfig cfg;
            cfg.budget = 64;
            cfg.window = 16;
            cfg.gqa = gqa;
            cfg.policy = policy;
            const auto sel = sc.select(cfg);
            ASSERT_TRUE(sel->compressed);
            Decoded dc, dg;
            const auto ac = sc.answer(*sel, recording_greedy(40, dc));
            const auto ag = sg.answer(*sel, recording_greedy(40, dg));
            ASSERT_EQ(ac.tokens.size(), 40u);
            EXPECT_EQ(ag.kv_bytes_compressed < ag.kv_bytes_full, true);
            const int agree = expect_greedy_agrees(dg, dc, 1e-5, 0.02);
            std::printf("compressed decode (%s, %s): %d of 40 tokens agree\n", gqa == GqaMode::KvHead ? "kv-head" : "query-head",
                        policy == BudgetPolicy::Uniform ? "uniform" : "adaptive", agree);
        }
}

// Budgets larger than the prompt: nothing is compressed, and the answer equals the full cache's.
TEST_F(CudaSessionTest, BudgetLargerThanThePromptKeepsEverything) {
    DocumentSession s(*gpu);
    s.prefill_document(doc);
    s.set_question(q1, 8);
    SnapKvConfig big;
    big.budget = 4096;
    big.window = 8;
    SnapKvConfig full = big;
    full.enabled = false;
    const auto sel = s.select(big);
    EXPECT_FALSE(sel->compressed);
    EXPECT_EQ(s.answer(*sel, greedy(8)).tokens, s.answer(*s.select(full), greedy(8)).tokens);
}

TEST_F(CudaSessionTest, ResnapEqualsFreshPrefill) {
    SnapKvConfig cfg;
    cfg.budget = 48;
    cfg.window = 8;
    DocumentSession s(*gpu);
    s.prefill_document(doc);
    for (const auto& q : {q1, q2, q1}) {
        s.set_question(q, cfg.window);
        const auto sel = s.select(cfg);
        const auto ans = s.answer(*sel, greedy(6));
        const auto prompt = concat(doc, q);
        DocumentSession fresh(*gpu);
        fresh.prefill_document(std::span(prompt).first(prompt.size() - 3));
        fresh.set_question(std::span(prompt).last(3), cfg.window);
        const auto fsel = fresh.select(cfg);
        expect_same_kept_ties_aside(*sel, *fsel, 1e-4 * cfg.window);
        const auto fans = fresh.answer(*fsel, greedy(6));
        EXPECT_EQ(ans.tokens, fans.tokens);
        EXPECT_LT(nmse(s.last_logits(), fresh.last_logits()), 1e-8);
    }
}

}  // namespace
}  // namespace snapdoc
