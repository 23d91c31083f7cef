#include "tests/cuda/cuda_model_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/session/prefill.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/token_ids.h"

namespace snapdoc::cudatest {

testing::TinyModelSpec gqa4_tiny_spec(uint64_t seed) {
    testing::TinyModelSpec spec;
    spec.n_layers = 3;
    spec.n_heads = 8;
    spec.n_kv_heads = 2;
    spec.seed = seed;
    return spec;
}

std::unique_ptr<LoadedTiny> load_tiny(const testing::TinyModelSpec& spec, DType dtype, bool hf) {
    auto t = std::make_unique<LoadedTiny>();
    t->weights = testing::make_tiny_weights(spec);
    if (hf) {
        testing::write_tiny_hf(t->dir.path() / "hf", t->weights, dtype);
        t->model = std::make_unique<Model>(load_model(t->dir.path() / "hf"));
    } else {
        testing::write_tiny_gguf(t->dir.path() / "m.gguf", t->weights, dtype);
        t->model = std::make_unique<Model>(load_model(t->dir.path() / "m.gguf"));
    }
    return t;
}

std::vector<float> prefill_logits(Backend& backend, const std::vector<int32_t>& ids, int chunk) {
    auto kv = make_full_kv_cache(backend, static_cast<int>(ids.size()));
    PrefillOptions opts;
    opts.chunk_rows = chunk;
    std::vector<float> all;
    prefill(backend, ids, 0, *kv, opts, &all);
    return all;
}

void expect_same_kept_ties_aside(const Selection& got, const Selection& want, double tol) {
    ASSERT_EQ(got.layers.size(), want.layers.size());
    ASSERT_EQ(got.compressed, want.compressed);
    for (std::size_t l = 0; l < want.layers.size(); ++l) {
        ASSERT_EQ(got.layers[l].size(), want.layers[l].size());
        for (std::size_t h = 0; h < want.layers[l].size(); ++h) {
            const auto& g = got.layers[l][h];
            const auto& w = want.layers[l][h];
            ASSERT_EQ(g.pooled.size(), w.pooled.size());
            for (std::size_t i = 0; i < w.pooled.size(); ++i)
                ASSERT_NEAR(g.pooled[i], w.pooled[i], tol) << "layer " << l << " head " << h << " position " << i;
            EXPECT_EQ(g.kept.size(), w.kept.size()) << "layer " << l << " head " << h;
            if (w.kept.empty() || w.pooled.empty()) continue;
            float cut = INFINITY;
            for (int32_t p : w.kept) cut = std::min(cut, w.pooled[p]);
            const std::set<int32_t> a(g.kept.begin(), g.kept.end()), b(w.kept.begin(), w.kept.end());
            for (int32_t p : a) {
                if (!b.count(p)) {
                    EXPECT_LE(std::fabs(w.pooled[p] - cut), tol) << "layer " << l << " head " << h << " kept " << p;
                }
            }
            for (int32_t p : b) {
                if (!a.count(p)) {
                    EXPECT_LE(std::fabs(w.pooled[p] - cut), tol) << "layer " << l << " head " << h << " dropped " << p;
                }
            }
        }
    }
}

double argmax_agreement(const std::vector<float>& a, const std::vector<float>& b, int vocab) {
    const std::size_t rows = a.size() / vocab;
    int agree = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const auto ra = a.begin() + r * vocab, rb = b.begin() + r * vocab;
        agree += (std::max_element(ra, ra + vocab) - ra) == (std::max_element(rb, rb + vocab) - rb);
    }
    return rows ? static_cast<double>(agree) / rows : 1.0;
}

int expect_argmax_agrees_within_margin(const std::vector<float>& got, const std::vector<float>& want, int vocab,
                                       double margin) {
    EXPECT_EQ(got.size(), want.size());
    const std::size_t rows = std::min(got.size(), want.size()) / vocab;
    int differ = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const auto g = got.begin() + r * vocab, w = want.begin() + r * vocab;
        const auto gi = std::max_element(g, g + vocab) - g, wi = std::max_element(w, w + vocab) - w;
        if (gi == wi) continue;
        ++differ;
        EXPECT_LE(w[wi] - w[gi], margin) << "row " << r << ": argmax " << gi << " where the reference's " << wi
                                         << " leads it by " << w[wi] - w[gi];
    }
    return differ;
}

GenerationRequest recording_greedy(int n, Decoded& into) {
    GenerationRequest r = testing::greedy_request(n);
    r.on_logits = [&into](std::span<const float> l) { into.logits.emplace_back(l.begin(), l.end()); };
    r.on_token = [&into](int32_t t) { into.tokens.push_back(t); };
    return r;
}

int expect_greedy_agrees(const Decoded& got, const Decoded& want, double nmse_tol, double margin) {
    const std::size_t n = std::min({got.tokens.size(), want.tokens.size(), got.logits.size(), want.logits.size()});
    EXPECT_GT(n, 0u);
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_LT(nmse(got.logits[i], want.logits[i]), nmse_tol) << "step " << i;
        if (got.tokens[i] == want.tokens[i]) continue;
        const auto& w = want.logits[i];
        const double lead = w[want.tokens[i]] - w[got.tokens[i]];
        EXPECT_LE(lead, margin) << "step " << i << ": token " << got.tokens[i] << " where the reference's " << want.tokens[i]
                                << " leads by " << lead << " (not a near tie)";
        return static_cast<int>(i);
    }
    EXPECT_EQ(got.tokens.size(), want.tokens.size());
    return static_cast<int>(n);
}

}  // namespace snapdoc::cudatest
