// The prefill-time estimate (issue 15 "know before you wait") and per-chunk prefill progress
// (issue 12): the cost-model fit on synthetic timings, the probe's cost bounded by what it ran
// (counters, not a clock), cost-weighted progress per chunk (the ETA: test_prefill_time_left.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill_estimate.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

constexpr double kPerRow = 2.0e-6, kPerPair = 3.0e-9;

double true_seconds(int64_t rows, int64_t depth) {
    return kPerRow * rows + kPerPair * attention_pairs(rows, depth);
}

TEST(PrefillCostModel, AttentionPairsCountCausalKeys) {
    EXPECT_EQ(attention_pairs(1, 0), 1);    // a first row sees itself
    EXPECT_EQ(attention_pairs(3, 0), 6);    // 1 + 2 + 3
    EXPECT_EQ(attention_pairs(2, 10), 23);  // 11 + 12
}

TEST(PrefillCostModel, PrefillSecondsIsTheSumOverChunksWhateverTheChunking) {
    const PrefillCostModel m{kPerRow, kPerPair};
    const int64_t D = 100000;
    for (int chunk : {1, 512, 777, 4096}) {
        double sum = 0;
        for (int64_t c0 = 0; c0 < D; c0 += chunk) sum += m.chunk_seconds(std::min<int64_t>(chunk, D - c0), c0);
        EXPECT_NEAR(sum * 4, m.prefill_seconds(D, 4), 1e-9 * sum) << chunk;
    }
}

TEST(PrefillCostModel, FitRecoversExactSyntheticTimings) {
    const std::vector<ProbeSample> s = {{512, 0, true_seconds(512, 0)}, {512, 50000, true_seconds(512, 50000)}};
    const PrefillCostModel m = fit_prefill_cost(s);
    EXPECT_NEAR(m.per_row, kPerRow, 1e-6 * kPerRow);
    EXPECT_NEAR(m.per_pair, kPerPair, 1e-6 * kPerPair);
}

TEST(PrefillCostModel, FitOnNoisySamplesPredictsA100KPrefillWithinTenPercent) {
    // Deterministic ±5% noise on samples at several depths (least squares over all of them).
    std::vector<ProbeSample> s;
    for (int i = 0; i < 12; ++i) {
        const int64_t depth = (i % 4) * 16000;
        const double noise = 1.0 + 0.05 * std::sin(1.7 * i + 0.3);
        s.push_back({256 + 64 * (i % 3), depth, true_seconds(256 + 64 * (i % 3), depth) * noise});
    }
    const PrefillCostModel m = fit_prefill_cost(s);
    const double truth = PrefillCostModel{kPerRow, kPerPair}.prefill_seconds(100000, 4);
    EXPECT_NEAR(m.prefill_seconds(100000, 4), truth, 0.10 * truth);
}

TEST(PrefillCostModel, FitNeverGoesNegative) {
    // The deep sample ran *faster* (noise): the attention part would come out negative.
    const std::vector<ProbeSample> s = {{512, 0, 1.0e-3}, {512, 4096, 0.9e-3}};
    const PrefillCostModel m = fit_prefill_cost(s);
    EXPECT_GE(m.per_row, 0);
    EXPECT_GE(m.per_pair, 0);
    EXPECT_GT(m.prefill_seconds(10000, 4), 0);
    // One depth only: everything is put on the rows.
    const std::vector<ProbeSample> one = {{512, 0, 1e-3}, {256, 0, 0.5e-3}};
    EXPECT_NEAR(fit_prefill_cost(one).prefill_seconds(1000, 1), 1000 * 1e-3 / 512, 1e-9);
    EXPECT_EQ(fit_prefill_cost({}).prefill_seconds(1000, 4), 0);
}

TEST(PrefillCostModel, FractionIsCostWeighted) {
    const PrefillCostModel m{0, 1};  // attention only
    const int64_t D = 1000;
    EXPECT_DOUBLE_EQ(m.fraction_done(D, 2, 0, 0), 0.0);
    EXPECT_DOUBLE_EQ(m.fraction_done(D, 2, 2, 0), 1.0);
    EXPECT_DOUBLE_EQ(m.fraction_done(D, 2, 1, 0), 0.5);
    // Half of a layer's rows are about a quarter of its attention work: later rows cost more.
    EXPECT_NEAR(m.fraction_done(D, 1, 0, D / 2), 0.25, 0.01);
    double last = 0;
    for (int64_t r = 0; r <= D; r += 100) {
        const double f = m.fraction_done(D, 1, 0, r);
        EXPECT_GE(f, last);
        last = f;
    }
}

TEST(PrefillCostModel, FlopWeightsGrowWithTheModel) {
    ModelConfig c;
    c.dim = 4096;
    c.n_heads = 32;
    c.n_kv_heads = 8;
    c.head_dim = 128;
    c.ffn_dim = 14336;
    const PrefillCostModel m = flop_cost_model(c);
    EXPECT_GT(m.per_row, 0);
    EXPECT_DOUBLE_EQ(m.per_pair, 4.0 * 32 * 128);
    // Llama-3-8B-shaped layer: ~0.22 G multiply-adds per row -> ~0.44 GFLOP.
    EXPECT_NEAR(m.per_row, 2.0 * (4096.0 * (2 * 4096 + 2 * 1024) + 3.0 * 4096 * 14336), 1);
}

TEST(FormatDuration, ReadsLikeAPerson) {
    EXPECT_EQ(format_duration(0.3), "under a second");
    EXPECT_EQ(format_duration(12.4), "about 12 s");
    EXPECT_EQ(format_duration(100), "about 1 min 40 s");
    EXPECT_EQ(format_duration(119), "about 2 min");
    EXPECT_EQ(format_duration(1500), "about 25 min");
    EXPECT_EQ(format_duration(7500), "about 2 h 5 min");
    EXPECT_EQ(format_duration(7200), "about 2 h");
}

class PrefillProbeTest : public ::testing::Test {
protected:
    void SetUp() override {
        spec.n_layers = 4;
        spec.n_heads = 4;
        spec.n_kv_heads = 2;
        spec.dim = 32;
        spec.seed = 5;
        write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
        model = std::make_unique<Model>(load_model(dir.path() / "m.gguf"));
        BackendOptions o;
        o.threads = 2;
        backend = make_cpu_backend(*model, o);
    }
    TempDir dir;
    TinyModelSpec spec;
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
};

TEST_F(PrefillProbeTest, CostsUnderTwoPercentOfThePrefillItPredicts) {
    for (int D : {8192, 32768, 100000}) {
        const auto tokens = random_ids(D, spec.vocab_size, 7);
        const PrefillEstimate e = estimate_prefill(*backend, tokens);
        ASSERT_TRUE(e.measured) << D;
        const int64_t prefill_rows = int64_t{D} * spec.n_layers;
        const int64_t prefill_pairs = spec.n_layers * attention_pairs(D, 0);
        EXPECT_LE(e.probe_rows, 0.02 * prefill_rows) << D;
        EXPECT_LE(e.probe_pairs, 0.02 * prefill_pairs) << D;
        EXPECT_EQ(e.probe_layer_calls, 4) << D;  // two depths x two repeats, one layer
        ASSERT_EQ(e.samples.size(), 2u);
        // The deep runs sit near the document's mean depth, where the prediction interpolates.
        EXPECT_GE(e.samples[1].depth, D / 2) << D;
        EXPECT_LE(e.samples[1].depth, D) << D;
        EXPECT_GT(e.seconds, 0) << D;
        EXPECT_GE(e.model.per_row, 0);
        EXPECT_GE(e.model.per_pair, 0);
    }
}

TEST_F(PrefillProbeTest, ShortDocumentsAreNotProbed) {
    const auto tokens = random_ids(1500, spec.vocab_size, 7);
    const PrefillEstimate e = estimate_prefill(*backend, tokens);
    EXPECT_FALSE(e.measured);
    EXPECT_EQ(e.probe_layer_calls, 0);
    EXPECT_EQ(e.probe_rows, 0);
}

TEST_F(PrefillProbeTest, ThePrefillReportsEveryChunkWithRisingCostWeightedFractions) {
    DocumentSessionOptions o;
    o.chunk_rows = 128;
    DocumentSession session(*backend, o);
    const int D = 1000;  // 8 chunks per layer, the last one short
    const auto tokens = random_ids(D, spec.vocab_size, 9);
    std::vector<PrefillProgress> seen;
    session.prefill_document(tokens, [&](const PrefillProgress& p) { seen.push_back(p); });
    ASSERT_EQ(seen.size(), 8u * spec.n_layers);
    double last = 0;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        const PrefillProgress& p = seen[i];
        EXPECT_EQ(p.layer, static_cast<int>(i / 8));
        EXPECT_EQ(p.rows_done, std::min<int>(D, 128 * static_cast<int>(i % 8 + 1)));
        EXPECT_EQ(p.rows_total, D);
        EXPECT_EQ(p.total_layers, spec.n_layers);
        EXPECT_EQ(p.layers_done, p.layer + (p.rows_done == D ? 1 : 0));
        EXPECT_GT(p.fraction, last);
        last = p.fraction;
    }
    EXPECT_DOUBLE_EQ(seen.back().fraction, 1.0);
    // Within a layer, a later chunk adds more work than an earlier one of the same size.
    EXPECT_GT(seen[6].fraction - seen[5].fraction, seen[1].fraction - seen[0].fraction);

    // A (done_layers, total_layers) callback still hears once per finished layer.
    std::vector<std::pair<int, int>> layers;
    session.prefill_document(tokens, [&](int done, int total) { layers.emplace_back(done, total); });
    ASSERT_EQ(layers.size(), static_cast<std::size_t>(spec.n_layers));
    for (int l = 0; l < spec.n_layers; ++l) EXPECT_EQ(layers[l], std::make_pair(l + 1, spec.n_layers));
}

}  // namespace
}  // namespace snapdoc
