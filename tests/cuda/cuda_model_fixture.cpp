#include "tests/cuda/cuda_model_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/session/prefill.h"

namespace snapdoc::cudatest {

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

}  // namespace snapdoc::cudatest
