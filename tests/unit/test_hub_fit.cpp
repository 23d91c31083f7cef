// Fit estimates for catalogue models on fixed machines (RAM and GPU memory injected): the memory
// parts against hand-computed numbers, the badges, the longest document, the prefill scaling and
// the recommended pick.
#include <gtest/gtest.h>

#include "app/hub/fit_estimate.h"
#include "engine/kv/full_kv_store.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_session.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc::hub {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

const CatalogueEntry& entry(const std::string& id) {
    const CatalogueEntry* e = builtin_catalogue().find(id);
    EXPECT_NE(e, nullptr) << id;
    return *e;
}

FitEstimate fit(const std::string& id, const std::string& quant, MachineMemory m, int64_t tokens = 100000) {
    const CatalogueEntry& e = entry(id);
    FitOptions o;
    o.document_tokens = tokens;
    return estimate_fit(e, *e.find_quant(quant), m, o);
}

TEST(HubFit, Llama8bPartsAt100kTokens) {
    const FitEstimate f = fit("llama-3.1-8b-instruct", "Q4_K_M", {64 * kGiB, 0});
    // 32 layers x 8 KV heads x 128 dims, K and V.
    EXPECT_EQ(f.memory.weights, static_cast<int64_t>(8030261248 * 4.85 / 8));
    EXPECT_EQ(f.memory.full_kv_store, int64_t{2} * 32 * 8 * 128 * 2 * 100000);  // f16: 128 KiB a token
    EXPECT_EQ(f.memory.hidden_states, int64_t{4} * 4096 * 100000);
    // The backend's cache in f16 (its default), as the store.
    EXPECT_EQ(f.memory.layer_kv, int64_t{2} * 8 * 128 * 2 * 100000);
    EXPECT_EQ(f.memory.compressed_kv, int64_t{2} * 32 * 8 * 128 * 2 * 1024);
    EXPECT_EQ(f.memory.scratch, int64_t{4} * (3 * 4096 + 2 * 4096 + 2 * 1024 + 2 * 14336) * 512 + 4 * 128256 +
                                    int64_t{4} * 32 * 4096 * 256);
    EXPECT_EQ(f.badge, FitBadge::Fits);
    EXPECT_FALSE(f.on_device);
    EXPECT_TRUE(f.within_context);
    EXPECT_EQ(f.longest_document_tokens, 131072);  // all of its context fits in 64 GiB
    EXPECT_NE(f.reason.find("of 64.0 GiB RAM"), std::string::npos) << f.reason;
}

TEST(HubFit, BadgesFollowTheMachine) {
    // ~20.3 GB at 100K: comfortably in 64 GiB, over 16 GiB but its non-store part (~7.2 GB)
    // fits there (the store pages from its spill file: tight), nothing in 4 GiB.
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q4_K_M", {64 * kGiB, 0}).badge, FitBadge::Fits);
    const FitEstimate tight = fit("llama-3.1-8b-instruct", "Q4_K_M", {16 * kGiB, 0});
    EXPECT_EQ(tight.badge, FitBadge::Tight);
    EXPECT_NE(tight.reason.find("page from disk"), std::string::npos) << tight.reason;
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q4_K_M", {4 * kGiB, 0}).badge, FitBadge::DoesNotFit);
    // Between 85% and 100% of RAM: tight.
    const FitEstimate at = fit("llama-3.1-8b-instruct", "Q4_K_M", {64 * kGiB, 0});
    const int64_t ram = at.memory.total() * 100 / 95;
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q4_K_M", {ram, 0}).badge, FitBadge::Tight);
    // Unknown RAM refuses nothing.
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q4_K_M", {0, 0}).badge, FitBadge::Fits);
}

TEST(HubFit, GpuHoldsAllButTheStore) {
    const FitEstimate f = fit("llama-3.1-8b-instruct", "Q8_0", {32 * kGiB, 80 * kGiB});
    EXPECT_TRUE(f.on_device);
    EXPECT_EQ(f.badge, FitBadge::Fits);
    EXPECT_NE(f.reason.find("free GPU memory"), std::string::npos) << f.reason;
    // A device too small for the weights: the CPU backend's answer stands.
    const FitEstimate small = fit("llama-3.1-8b-instruct", "Q8_0", {64 * kGiB, 2 * kGiB});
    EXPECT_FALSE(small.on_device);
    EXPECT_EQ(small.badge, FitBadge::Fits);
}

TEST(HubFit, ContextLimitsTheDocument) {
    const FitEstimate f = fit("qwen2.5-7b-instruct", "Q4_K_M", {64 * kGiB, 0});
    EXPECT_FALSE(f.within_context);
    EXPECT_EQ(f.badge, FitBadge::DoesNotFit);
    EXPECT_NE(f.reason.find("longer than the model's context (32,768 tokens)"), std::string::npos)
        << f.reason;
    EXPECT_EQ(f.longest_document_tokens, 32768);
    EXPECT_EQ(fit("qwen2.5-7b-instruct", "Q4_K_M", {64 * kGiB, 0}, 32768).badge, FitBadge::Fits);
}

TEST(HubFit, LongestDocumentIsTheEdgeOfFits) {
    const MachineMemory m{16 * kGiB, 0};
    const FitEstimate f = fit("llama-3.1-8b-instruct", "Q4_K_M", m);
    ASSERT_GT(f.longest_document_tokens, 1000);
    ASSERT_LT(f.longest_document_tokens, 100000);
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q4_K_M", m, f.longest_document_tokens).badge, FitBadge::Fits);
    EXPECT_NE(fit("llama-3.1-8b-instruct", "Q4_K_M", m, f.longest_document_tokens + 1).badge, FitBadge::Fits);
    // Nothing fits: 0.
    EXPECT_EQ(fit("llama-3.1-8b-instruct", "Q8_0", {kGiB, 0}).longest_document_tokens, 0);
}

const FitEstimate& pick(const std::vector<FitEstimate>& all, const FitOptions& o) {
    const int i = recommend(all, o);
    EXPECT_GE(i, 0);
    return all.at(static_cast<std::size_t>(std::max(i, 0)));
}

TEST(HubFit, RecommendedPickFor100kTokens) {
    FitOptions o;
    auto all = estimate_catalogue(builtin_catalogue(), {64 * kGiB, 0}, o);
    EXPECT_EQ(all.size(), 23u);
    // Only the 128K-context models take 100K tokens; the largest that fits is Llama 3.1 8B, at Q4_K_M.
    EXPECT_EQ(pick(all, o).model_id, "llama-3.1-8b-instruct");
    EXPECT_EQ(pick(all, o).quant, "Q4_K_M");
    all = estimate_catalogue(builtin_catalogue(), {16 * kGiB, 0}, o);
    EXPECT_EQ(pick(all, o).model_id, "llama-3.2-1b-instruct");  // the 3B's 11.5 GB store makes it tight
    all = estimate_catalogue(builtin_catalogue(), {kGiB, 0}, o);
    EXPECT_EQ(recommend(all, o), -1);
    // A short document: every model's context takes it; the largest is Qwen3 8B.
    o.document_tokens = 8000;
    all = estimate_catalogue(builtin_catalogue(), {64 * kGiB, 0}, o);
    EXPECT_EQ(pick(all, o).model_id, "qwen3-8b");
}

ModelConfig shape(int layers, int dim, int heads, int kv, int ffn) {
    ModelConfig c;
    c.n_layers = layers;
    c.dim = dim;
    c.n_heads = heads;
    c.n_kv_heads = kv;
    c.head_dim = dim / heads;
    c.ffn_dim = ffn;
    return c;
}

TEST(HubFit, PrefillScalesByFlops) {
    MeasuredPrefill m{{1e-6, 1e-9}, shape(2, 64, 4, 2, 96)};
    EXPECT_DOUBLE_EQ(scaled_prefill_seconds(m, m.config, 5000), m.cost.prefill_seconds(5000, 2));
    // Twice the layers: twice the time; twice the width: per-row FLOPs x4, attention pairs x2.
    EXPECT_DOUBLE_EQ(scaled_prefill_seconds(m, shape(4, 64, 4, 2, 96), 5000),
                     2 * m.cost.prefill_seconds(5000, 2));
    const ModelConfig wide = shape(2, 128, 8, 4, 192);
    const double expect = 2 * (4 * m.cost.per_row * 5000 + 2 * m.cost.per_pair * attention_pairs(5000, 0));
    EXPECT_NEAR(scaled_prefill_seconds(m, wide, 5000), expect, 1e-9 * expect);
}

TEST(HubFit, SlowPrefillMovesThePick) {
    FitOptions o;
    // A probe on the 1B shape that predicts 10 min for 100K tokens with the 1B itself (per-row
    // cost only): the 8B (7.2x its FLOPs) and Phi-3.5 (3.7x) are then over the 30-minute limit,
    // the Llama 3.2 3B (2.9x) is not.
    const ModelConfig one_b = entry("llama-3.2-1b-instruct").shape;
    MeasuredPrefill m{{0, 0}, one_b};
    m.cost.per_row = 600.0 / (one_b.n_layers * 100000.0);
    o.prefill = m;
    const auto all = estimate_catalogue(builtin_catalogue(), {64 * kGiB, 0}, o);
    const FitEstimate& p = pick(all, o);
    EXPECT_LE(p.prefill_seconds, o.max_prefill_seconds);
    EXPECT_EQ(p.model_id, "llama-3.2-3b-instruct");
    EXPECT_NEAR(p.prefill_seconds,
                600.0 * (28.0 * 2 * (3072 * 8192 + 3 * 3072 * 8192.0)) /
                    (16.0 * 2 * (2048 * 5120 + 3 * 2048 * 8192.0)),
                1e-6);
}

TEST(HubFit, AllTooSlowPicksTheQuickest) {
    FitOptions o;
    const ModelConfig one_b = entry("llama-3.2-1b-instruct").shape;
    MeasuredPrefill m{{0, 0}, one_b};
    m.cost.per_row = 7200.0 / (one_b.n_layers * 100000.0);  // 2 h for the 1B: everything is over 30 min
    o.prefill = m;
    const auto all = estimate_catalogue(builtin_catalogue(), {64 * kGiB, 0}, o);
    EXPECT_EQ(pick(all, o).model_id, "llama-3.2-1b-instruct");
}

// The plan against what a real DocumentSession allocates on a tiny model.
TEST(HubFit, DocumentPlanMatchesASession) {
    snapdoc::testing::TempDir dir;
    snapdoc::testing::TinyModelSpec spec;
    spec.n_layers = 3;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
    const Model model = load_model(dir.path() / "m.gguf");
    auto backend = make_cpu_backend(model);
    DocumentSession session(*backend);
    const auto doc = snapdoc::testing::random_ids(300, spec.vocab_size, 1);
    session.prefill_document(doc);
    const DocumentMemory plan = plan_document_memory(model.config, model.weight_bytes(), 300, 64);
    EXPECT_EQ(plan.full_kv_store, session.full_store_bytes());
    EXPECT_EQ(plan.layer_kv, session.prefill_peak_cache_bytes());
    EXPECT_EQ(plan.weights, model.weight_bytes());
}

}  // namespace
}  // namespace snapdoc::hub
