// Document sessions: layer-major prefill, re-snap for new questions, selection without forward
// passes, and decoding on the ragged compressed cache — each checked against an independent path
// (token-major prefill, a differently split prompt, or the reference forward pass with attention
// restricted to the kept positions).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "engine/common/error.h"
#include "engine/model/dtype.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/compressed_prefill.h"
#include "engine/session/document_session.h"
#include "engine/session/generate.h"
#include "engine/session/prefill.h"
#include "tests/support/engine_logits.h"
#include "tests/support/reference_llama.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

class DocumentSessionTest : public ::testing::Test {
protected:
    void SetUp() override {
        spec.n_layers = 3;
        spec.n_heads = 4;
        spec.n_kv_heads = 2;
        spec.seed = 21;
        weights = make_tiny_weights(spec);
        write_tiny_gguf(dir.path() / "m.gguf", weights, DType::F32);
        model = std::make_unique<Model>(load_model(dir.path() / "m.gguf"));
        backend = exact_cpu_backend(*model);
        doc = random_ids(180, spec.vocab_size, 1);
        q1 = random_ids(12, spec.vocab_size, 2);
        q2 = random_ids(9, spec.vocab_size, 3);
    }

    static GenerationRequest greedy(int n) { return greedy_request(n); }

    TempDir dir;
    TinyModelSpec spec;
    TinyWeights weights;
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
    std::vector<int32_t> doc, q1, q2;
};

void expect_same_kept(const Selection& a, const Selection& b) {
    ASSERT_EQ(a.layers.size(), b.layers.size());
    for (std::size_t l = 0; l < a.layers.size(); ++l)
        for (std::size_t h = 0; h < a.layers[l].size(); ++h) {
            const auto& pa = a.layers[l][h].pooled;
            const auto& pb = b.layers[l][h].pooled;
            ASSERT_EQ(pa.size(), pb.size());
            for (std::size_t i = 0; i < pa.size(); ++i) ASSERT_NEAR(pa[i], pb[i], 1e-4) << "layer " << l << " head " << h;
            EXPECT_EQ(a.layers[l][h].kept, b.layers[l][h].kept) << "layer " << l << " head " << h;
        }
}

WindowScores reference_window_scores(const TinyWeights& w, const std::vector<int32_t>& prompt, int window,
                                     const StoredAsF16& stored);

// The token-major reference for a store filled in stages: the rows of each stage run in f32 over
// the rows before them as stored (rounded to f16 exactly as the store rounds them), then all rows
// so far are rounded; the rows after the last stage run over that. Returns the last row's logits.
// (Partial prefix reuse: rows [0, R) come from another session's store, then [R, D) run over them.)
std::vector<float> staged_rounded_logits(Backend& backend, const std::vector<int32_t>& prompt,
                                         std::vector<int> stages) {
    const ModelConfig& c = backend.config();
    const int L = static_cast<int>(prompt.size()), hd = c.head_dim;
    auto kv = make_full_kv_cache(backend, L);
    int done = 0;
    for (int b : stages) {
        prefill(backend, std::span(prompt).subspan(done, b - done), done, *kv);
        auto stored = make_full_kv_cache(backend, L);
        std::vector<float> k(static_cast<std::size_t>(b) * hd), v(k.size());
        std::vector<int32_t> pos(b);
        std::iota(pos.begin(), pos.end(), 0);
        for (int l = 0; l < c.n_layers; ++l)
            for (int h = 0; h < c.n_kv_heads; ++h) {
                backend.read_kv(*kv, l, h, 0, b, k.data(), v.data());
                for (auto* x : {&k, &v})
                    for (float& f : *x) f = f16_to_f32(f32_to_f16(f));
                backend.append_kv(*stored, l, h, pos.data(), b, k.data(), v.data());
            }
        kv = std::move(stored);
        done = b;
    }
    return prefill(backend, std::span(prompt).subspan(done), done, *kv);
}

// The token-major reference for a session whose store holds the first `rounded` prompt positions:
// those rows run in f32 over an f32 cache (as layer-major prefill does: rounding happens only when a
// finished layer's K/V move to the host store), then their K/V are rounded to f16 exactly as the
// store rounds them, and the remaining rows run over that. Returns the last row's logits.
std::vector<float> rounded_prefix_logits(Backend& backend, const std::vector<int32_t>& prompt, int rounded) {
    return staged_rounded_logits(backend, prompt, {rounded});
}

// The document's K/V are stored as f16, so the session equals token-major prefill with the
// document's K/V rounded to f16 the same way (to float summation order: 1e-4, as for f32); plain
// f32 token-major prefill differs from both by the rounding.
TEST_F(DocumentSessionTest, LastLogitsEqualTokenMajorPrefill) {
    DocumentSession s(*backend);
    s.prefill_document(doc);
    s.set_question(q1, 8);
    const auto prompt = concat(doc, q1);
    const auto ref = rounded_prefix_logits(*backend, prompt, static_cast<int>(doc.size()));
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(s.last_logits()[i], ref[i], 1e-4);
    auto kv = make_full_kv_cache(*backend, static_cast<int>(prompt.size()));
    const auto f32 = prefill(*backend, prompt, 0, *kv);
    double diff = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) diff = std::max(diff, std::fabs(double(f32[i]) - ref[i]));
    EXPECT_GT(diff, 0.0);  // the reference really rounds (else the check above would prove nothing)
}

TEST_F(DocumentSessionTest, ResnapEqualsFreshPrefillForLaterQuestions) {
    SnapKvConfig cfg;
    cfg.budget = 40;
    cfg.window = 8;
    DocumentSession s(*backend);
    s.prefill_document(doc);
    for (const auto& q : {q1, q2, q1}) {
        s.set_question(q, cfg.window);
        const auto sel = s.select(cfg);
        const auto ans = s.answer(*sel, greedy(6));
        // Fresh: a new session over the same prompt, split elsewhere (the "document" now ends 3
        // tokens before the end, so the window reaches back into its tail).
        const auto prompt = concat(doc, q);
        DocumentSession fresh(*backend);
        fresh.prefill_document(std::span(prompt).first(prompt.size() - 3));
        fresh.set_question(std::span(prompt).last(3), cfg.window);
        const auto fsel = fresh.select(cfg);
        // Each selects what the reference selects with the K/V it stored read as f16 (fresh: the
        // document and the first Q-3 question tokens).
        const int D = static_cast<int>(doc.size()), F = static_cast<int>(prompt.size()) - 3;
        expect_same_kept(*sel, *select_positions(cfg, reference_window_scores(weights, prompt, cfg.window,
                                                                              [D](int q, int k) { return q >= D && k < D; })));
        expect_same_kept(*fsel, *select_positions(cfg, reference_window_scores(weights, prompt, cfg.window,
                                                                               [F](int q, int k) { return q >= F && k < F; })));
        const auto fans = fresh.answer(*fsel, greedy(6));
        EXPECT_EQ(ans.tokens, fans.tokens);
        // The two stores round different positions to f16 (fresh: also the first Q-3 question
        // tokens), so each is compared with the token-major reference that rounds what it stores.
        const int L = static_cast<int>(prompt.size());
        const auto ref_s = rounded_prefix_logits(*backend, prompt, static_cast<int>(doc.size()));
        const auto ref_fresh = rounded_prefix_logits(*backend, prompt, L - 3);
        for (std::size_t i = 0; i < s.last_logits().size(); ++i) {
            ASSERT_NEAR(s.last_logits()[i], ref_s[i], 1e-4);
            ASSERT_NEAR(fresh.last_logits()[i], ref_fresh[i], 1e-4);
        }
    }
}

// With sliding-window attention the question's window cannot vote for positions its queries do
// not see: their scores are exactly zero, and so SnapKV never keeps them for the window's sake.
TEST(DocumentSessionSlidingWindow, WindowScoresStayInsideTheAttentionWindow) {
    TempDir dir;
    TinyModelSpec spec;
    spec.n_layers = 2;
    spec.sliding_window = 40;
    spec.seed = 4;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
    const Model model = load_model(dir.path() / "m.gguf");
    auto backend = exact_cpu_backend(model);
    DocumentSession s(*backend);
    s.prefill_document(random_ids(150, spec.vocab_size, 1));
    s.set_question(random_ids(8, spec.vocab_size, 2), 8);
    const WindowScores& w = s.window_scores();
    ASSERT_EQ(w.n_prefix(), 150);
    // The window's queries sit at positions 150..157; the earliest sees keys from 150 - 40 + 1 = 111.
    for (int l = 0; l < w.n_layers; ++l)
        for (int h = 0; h < w.n_heads; ++h) {
            const float* sc = w.head(l, h);
            for (int p = 0; p < 111; ++p) ASSERT_EQ(sc[p], 0.0f) << "layer " << l << " head " << h << " pos " << p;
            float inside = 0;
            for (int p = 111; p < 150; ++p) inside += sc[p];
            EXPECT_GT(inside, 0.1f);
        }
}

TEST_F(DocumentSessionTest, ReselectionNeedsNoForwardPass) {
    DocumentSession s(*backend);
    s.prefill_document(doc);
    s.set_question(q1, 8);
    const auto before = s.counters();
    for (int budget : {16, 40, 100}) {
        for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead})
            for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Pyramid, BudgetPolicy::Adaptive})
                for (auto pool : {Pooling::Max, Pooling::Avg}) {
                    SnapKvConfig cfg;
                    cfg.budget = budget;
                    cfg.window = 8;
                    cfg.kernel = 5;
                    cfg.gqa = gqa;
                    cfg.policy = policy;
                    cfg.pooling = pool;
                    s.select(cfg);
                }
    }
    EXPECT_EQ(s.counters().layer_forward_calls, before.layer_forward_calls);
    EXPECT_EQ(s.counters().scoring_passes, before.scoring_passes);
    // A different window re-scores (no layer forward either).
    s.set_window(16);
    EXPECT_EQ(s.counters().layer_forward_calls, before.layer_forward_calls);
    EXPECT_GT(s.counters().scoring_passes, before.scoring_passes);
}

TEST_F(DocumentSessionTest, AskingANewQuestionRunsOnlyTheQuestion) {
    DocumentSession s(*backend);
    s.prefill_document(doc);
    s.set_question(q1, 8);
    const auto before = s.counters();
    s.set_question(q2, 8);
    EXPECT_EQ(s.counters().rows_forwarded - before.rows_forwarded,
              static_cast<int64_t>(q2.size()) * spec.n_layers);
}

TEST_F(DocumentSessionTest, BudgetCoveringThePromptEqualsFullCache) {
    DocumentSession s(*backend);
    s.prefill_document(doc);
    s.set_question(q1, 8);
    SnapKvConfig big;
    big.budget = 4096;
    big.window = 8;
    SnapKvConfig full = big;
    full.enabled = false;
    const auto a = s.answer(*s.select(big), greedy(10));
    const auto b = s.answer(*s.select(full), greedy(10));
    EXPECT_EQ(a.tokens, b.tokens);
    // ...and equals plain generation over the same prompt.
    GenerationRequest r = greedy(10);
    r.prompt = concat(doc, q1);
    EXPECT_EQ(generate(*backend, r).tokens, a.tokens);
}

// The decisive check: each decode step on the compressed cache equals the reference forward pass
// in which every head of every layer attends only to its kept positions, the window and the
// generated tokens (the prompt itself is processed with full attention, as SnapKV does).
TEST_F(DocumentSessionTest, DecodingOnCompressedCacheEqualsRestrictedAttention) {
    for (auto gqa : {GqaMode::KvHead, GqaMode::QueryHead})
        for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Adaptive}) {
            DocumentSession s(*backend);
            s.prefill_document(doc);
            s.set_question(q1, 8);
            SnapKvConfig cfg;
            cfg.budget = 30;
            cfg.window = 8;
            cfg.gqa = gqa;
            cfg.policy = policy;
            const auto sel = s.select(cfg);
            ASSERT_TRUE(sel->compressed);
            std::vector<std::vector<float>> step_logits;
            GenerationRequest r = greedy(5);
            r.on_logits = [&](std::span<const float> l) { step_logits.emplace_back(l.begin(), l.end()); };
            const auto ans = s.answer(*sel, r);
            ASSERT_EQ(ans.tokens.size(), 5u);

            const int L = s.prompt_tokens(), W = sel->window, group_q = spec.n_heads / sel->cache_heads;
            std::vector<std::vector<std::vector<char>>> allowed(spec.n_layers);
            for (int l = 0; l < spec.n_layers; ++l)
                for (int c = 0; c < sel->cache_heads; ++c) {
                    std::vector<char> a(L, 0);
                    for (int32_t p : sel->layers[l][c].kept) a[p] = 1;
                    for (int p = L - W; p < L; ++p) a[p] = 1;
                    allowed[l].push_back(std::move(a));
                }
            const AttentionFilter filter = [&](int layer, int head, int query, int key) {
                if (query < L || key >= L) return true;
                return allowed[layer][head / group_q][key] != 0;
            };
            const auto seq = concat(concat(doc, q1), std::vector<int32_t>(ans.tokens.begin(), ans.tokens.end() - 1));
            // Everything after the document reads the document's K/V from the f16 store.
            const int D = static_cast<int>(doc.size());
            const StoredAsF16 stored = [D](int query, int key) { return query >= D && key < D; };
            const auto ref = reference_logits(weights, seq, filter, 0, nullptr, stored);
            for (int step = 0; step < 5; ++step) {
                const std::size_t row = static_cast<std::size_t>(L - 1 + step) * spec.vocab_size;
                double md = 0, mx = 0;
                for (int v = 0; v < spec.vocab_size; ++v) {
                    md = std::max(md, std::fabs(step_logits[step][v] - ref[row + v]));
                    mx = std::max(mx, std::fabs(ref[row + v]));
                }
                EXPECT_LT(md / mx, 1e-4) << "step " << step << " gqa " << gqa_mode_name(gqa);
            }
            // The cache's bytes match the kept counts (ragged, no padding to the largest head).
            EXPECT_EQ(ans.kv_bytes_compressed, sel->kept_entries() * 2 * 4 * (spec.dim / spec.n_heads));
            EXPECT_EQ(static_cast<int64_t>(ans.kv_bytes),
                      (sel->kept_entries() + 5LL * spec.n_layers * sel->cache_heads) * 2 * 4 * (spec.dim / spec.n_heads));
            EXPECT_LT(ans.kv_bytes_compressed, ans.kv_bytes_full);
        }
}

TEST_F(DocumentSessionTest, LayerMajorPrefillHoldsOneLayerOfFullKv) {
    DocumentSession s(*backend);
    KvCache::reset_peak_live_bytes();
    const int64_t before = KvCache::live_bytes();
    s.prefill_document(doc);
    const int64_t one_layer = static_cast<int64_t>(doc.size()) * spec.n_kv_heads * (spec.dim / spec.n_heads) * 2 * 4;
    EXPECT_LE(KvCache::peak_live_bytes() - before, one_layer);
    EXPECT_EQ(s.prefill_peak_cache_bytes(), one_layer);
}

TEST_F(DocumentSessionTest, SpillsTheFullStoreToAFileAboveTheRamCap) {
    DocumentSessionOptions o;
    o.kv_ram_cap_bytes = 1024;  // far below the store's size
    o.spill_dir = dir.path();
    DocumentSession spilled(*backend, o);
    spilled.prefill_document(doc);
    EXPECT_TRUE(spilled.store_file_backed());
    // The spill file is unlinked at creation: nothing is left in the directory, even after a crash.
    int entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
    EXPECT_EQ(entries, 1);  // just m.gguf
    DocumentSession ram(*backend);
    ram.prefill_document(doc);
    EXPECT_FALSE(ram.store_file_backed());
    spilled.set_question(q1, 8);
    ram.set_question(q1, 8);
    SnapKvConfig cfg;
    cfg.budget = 40;
    cfg.window = 8;
    EXPECT_EQ(spilled.answer(*spilled.select(cfg), greedy(5)).tokens, ram.answer(*ram.select(cfg), greedy(5)).tokens);
}

TEST_F(DocumentSessionTest, ClearErrors) {
    DocumentSession s(*backend);
    EXPECT_THROW(s.set_question(q1, 8), Error);  // no document yet
    EXPECT_THROW(s.prefill_document({}), Error);
    s.prefill_document(doc);
    EXPECT_THROW(s.set_question({}, 8), Error);
    s.set_question(q1, 8);
    SnapKvConfig cfg;
    cfg.window = 8;
    cfg.budget = 8;
    EXPECT_THROW(s.select(cfg), Error);  // B <= W
    cfg.budget = 40;
    cfg.window = 16;
    EXPECT_THROW(s.select(cfg), Error);  // scores were made for W=8
    std::atomic<bool> cancel{true};
    EXPECT_THROW(s.prefill_document(doc, {}, &cancel), Cancelled);
}

}  // namespace
}  // namespace snapdoc

namespace snapdoc {
namespace {

// SnapKV's window scores from the reference forward pass: the attention of the last W prompt rows,
// summed per prefix position (DESIGN.md step 2), with the document's K/V read as f16 or exact.
WindowScores reference_window_scores(const TinyWeights& w, const std::vector<int32_t>& prompt, int window,
                                     const StoredAsF16& stored) {
    ReferenceTrace trace;
    reference_logits(w, prompt, {}, 0, &trace, stored);
    WindowScores ws;
    ws.prompt_len = static_cast<int>(prompt.size());
    ws.window = window;
    ws.n_layers = w.spec.n_layers;
    ws.n_heads = w.spec.n_heads;
    ws.n_kv_heads = w.spec.n_kv_heads;
    const int L = ws.prompt_len, P = ws.n_prefix();
    ws.layers.assign(ws.n_layers, std::vector<float>(static_cast<std::size_t>(ws.n_heads) * P, 0.0f));
    for (int l = 0; l < ws.n_layers; ++l)
        for (int h = 0; h < ws.n_heads; ++h)
            for (int j = 0; j < P; ++j) {
                double sum = 0;
                for (int t = L - window; t < L; ++t) sum += trace.probs[l][h][static_cast<std::size_t>(t) * L + j];
                ws.layers[l][static_cast<std::size_t>(h) * P + j] = static_cast<float>(sum);
            }
    return ws;
}

// The single-question path that keeps nothing but the compressed cache selects what the reference's
// window scores select, as the re-snap session does — each against its own K/V: exact for the
// one-shot path (it never stores K/V), the document's K/V read as f16 for the session — and both
// decode the same answer, while only one layer's full K/V (plus the final compressed cache) is
// ever resident.
TEST_F(DocumentSessionTest, CompressedPrefillMatchesTheSessionAndHoldsOneLayer) {
    for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Pyramid, BudgetPolicy::Adaptive}) {
        SnapKvConfig cfg;
        cfg.budget = 30;
        cfg.window = 8;
        cfg.policy = policy;
        cfg.gqa = policy == BudgetPolicy::Pyramid ? GqaMode::QueryHead : GqaMode::KvHead;
        DocumentSession s(*backend);
        s.prefill_document(doc);
        s.set_question(q1, cfg.window);
        const auto sel = s.select(cfg);
        const auto ans = s.answer(*sel, greedy(6));

        const auto prompt = concat(doc, q1);
        KvCache::reset_peak_live_bytes();
        const int64_t before = KvCache::live_bytes();
        CompressedPrompt cp = prefill_compressed(*backend, prompt, cfg, 6, /*chunk_rows=*/64);
        const int64_t one_layer = static_cast<int64_t>(prompt.size()) * spec.n_kv_heads * (spec.dim / spec.n_heads) * 8;
        EXPECT_LE(KvCache::peak_live_bytes() - before, std::max<int64_t>(one_layer, cp.cache->reserved_bytes()));
        const int D = static_cast<int>(doc.size());
        expect_same_kept(*cp.selection, *select_positions(cfg, reference_window_scores(weights, prompt, cfg.window, {})));
        expect_same_kept(*sel, *select_positions(cfg, reference_window_scores(weights, prompt, cfg.window,
                                                                              [D](int q, int k) { return q >= D && k < D; })));
        GenerationResult r;
        decode_loop(*backend, *cp.cache, cp.last_logits, static_cast<int>(prompt.size()), prompt, greedy(6), r);
        EXPECT_EQ(r.tokens, ans.tokens) << budget_policy_name(policy);
    }
}

TEST_F(DocumentSessionTest, ReusableRowsStopWhereTheNewTailNeedsQueriesTheBaseDoesNotHold) {
    DocumentSessionOptions o;
    o.max_window = 32;
    DocumentSession base(*backend, o), s(*backend, o);
    base.prefill_document(doc);                       // 180 tokens: queries kept for rows 148..179
    EXPECT_EQ(s.reusable_rows(base, 120, 200), 120);  // the new tail (168..199) is all computed
    EXPECT_EQ(s.reusable_rows(base, 175, 195), 175);  // tail 163..194: 163..174 from base's tail
    EXPECT_EQ(s.reusable_rows(base, 180, 210), 180);  // appended: tail 178..209
    EXPECT_EQ(s.reusable_rows(base, 170, 175), 143);  // tail 143..174 reaches before base's 148
    EXPECT_EQ(s.reusable_rows(base, 100, 100), 68);   // a cut document: its tail must be computed
    EXPECT_EQ(s.reusable_rows(base, 300, 150), 118);
    DocumentSession empty(*backend, o);
    EXPECT_EQ(s.reusable_rows(empty, 50, 100), 0);
}

TEST_F(DocumentSessionTest, PrefillFromAnotherSessionEqualsTheStagedReference) {
    SnapKvConfig cfg;
    cfg.budget = 60;
    cfg.window = 36;  // 4 question rows + the document's 32 kept tail rows
    DocumentSessionOptions o;
    o.max_window = 32;
    DocumentSession base(*backend, o);
    base.prefill_document(doc);
    const std::vector<int32_t> q = random_ids(4, spec.vocab_size, 7);
    const std::vector<int32_t> edited =
        concat(std::vector<int32_t>(doc.begin(), doc.begin() + 120), random_ids(80, spec.vocab_size, 8));
    const std::vector<int32_t> appended = concat(doc, random_ids(30, spec.vocab_size, 9));
    const std::vector<int32_t> near_end =
        concat(std::vector<int32_t>(doc.begin(), doc.begin() + 175), random_ids(20, spec.vocab_size, 10));
    const std::vector<int32_t> cut(doc.begin(), doc.begin() + 170);
    for (const auto& next : {edited, appended, near_end, cut}) {
        const int D = static_cast<int>(next.size());
        int common = 0;
        while (common < D && common < static_cast<int>(doc.size()) && next[common] == doc[common]) ++common;
        DocumentSession s(*backend, o);
        const int R = s.reusable_rows(base, common, D);
        const int64_t rows_before = s.counters().rows_forwarded;
        s.prefill_document_from(base, R, next);
        EXPECT_EQ(s.counters().rows_forwarded - rows_before, int64_t{D - R} * spec.n_layers)
            << "only the rest runs";
        s.set_question(q, cfg.window);
        const auto prompt = concat(next, q);
        const auto ref =
            staged_rounded_logits(*backend, prompt, R == D ? std::vector<int>{D} : std::vector<int>{R, D});
        for (std::size_t i = 0; i < ref.size(); ++i)
            ASSERT_NEAR(s.last_logits()[i], ref[i], 1e-4) << "D " << D;
        // Window queries over rows R.. read the shared rows as stored; those before R are base's.
        const StoredAsF16 stored = [R, D](int query, int key) {
            return (query >= R && key < R) || (query >= D && key < D);
        };
        expect_same_kept(*s.select(cfg), *select_positions(cfg, reference_window_scores(weights, prompt,
                                                                                        cfg.window, stored)));
    }
    DocumentSession s(*backend, o);
    // Tail queries the base does not hold (reusable_rows gives 143 here).
    EXPECT_THROW(s.prefill_document_from(base, 170, std::span(near_end).first(175)), Error);
    EXPECT_THROW(s.prefill_document_from(s, 0, edited), Error);
}

}  // namespace
}  // namespace snapdoc
