// SnapKV selection on the device (kernels/snapkv.h) against the CPU selection (engine/kv/selection.*):
// pooled scores for both pooling kinds and both GQA modes, the top-k kept sets (ties aside), ties
// resolved to the lowest positions, and the gather into a compressed cache (bit-exact copies).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/kv/selection.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "kernels/snapkv.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

// Window scores shaped like real ones: positive, a few heavy hitters per head.
WindowScores make_scores(int n_heads, int n_kv, int n_prefix, int window, uint32_t seed) {
    WindowScores ws;
    ws.prompt_len = n_prefix + window;
    ws.window = window;
    ws.n_layers = 1;
    ws.n_heads = n_heads;
    ws.n_kv_heads = n_kv;
    std::mt19937 rng(seed);
    std::exponential_distribution<float> e(1.0f);
    ws.layers.assign(1, std::vector<float>(static_cast<std::size_t>(n_heads) * n_prefix));
    for (auto& v : ws.layers[0]) v = e(rng) * (rng() % 50 == 0 ? 20.0f : 0.2f);
    return ws;
}

struct SnapCase {
    int n_heads, n_kv, n_prefix, window, budget;
    GqaMode gqa;
    Pooling pooling;
};

class SnapKvKernels : public ::testing::TestWithParam<SnapCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(SnapKvKernels, PoolTopKAndGatherMatchCpuSelection) {
    const SnapCase c = GetParam();
    const WindowScores ws = make_scores(c.n_heads, c.n_kv, c.n_prefix, c.window, 7);
    SnapKvConfig cfg;
    cfg.budget = c.budget;
    cfg.window = c.window;
    cfg.gqa = c.gqa;
    cfg.pooling = c.pooling;
    const auto want = select_positions(cfg, ws);
    ASSERT_TRUE(want->compressed);
    const int heads = want->cache_heads, k = c.budget - c.window;

    auto d_scores = to_device(ws.layers[0]);
    cuda::DeviceBuffer d_pooled(static_cast<std::size_t>(heads) * c.n_prefix * 4, "pooled"),
        d_kept(static_cast<std::size_t>(heads) * k * 4, "kept");
    kernels::SnapPoolArgs pa;
    pa.scores = d_scores.as<float>();
    pa.n_heads = c.n_heads;
    pa.n_prefix = c.n_prefix;
    pa.group = c.gqa == GqaMode::KvHead ? c.n_heads / c.n_kv : 1;
    pa.kernel = cfg.kernel;
    pa.max_pool = c.pooling == Pooling::Max;
    pa.pooled = d_pooled.as<float>();
    cuda::check(kernels::snapkv_pool(pa, nullptr), "snapkv_pool");
    cuda::check(kernels::top_k_rows(d_pooled.as<float>(), heads, c.n_prefix, k, d_kept.as<int32_t>(), nullptr), "top_k");
    const auto pooled = from_device<float>(d_pooled.get(), static_cast<std::size_t>(heads) * c.n_prefix);
    const auto kept = from_device<int32_t>(d_kept.get(), static_cast<std::size_t>(heads) * k);

    Selection got = *want;
    for (int h = 0; h < heads; ++h) {
        got.layers[0][h].pooled.assign(pooled.begin() + static_cast<std::ptrdiff_t>(h) * c.n_prefix,
                                       pooled.begin() + static_cast<std::ptrdiff_t>(h + 1) * c.n_prefix);
        got.layers[0][h].kept.assign(kept.begin() + static_cast<std::ptrdiff_t>(h) * k, kept.begin() + static_cast<std::ptrdiff_t>(h + 1) * k);
        EXPECT_TRUE(std::is_sorted(got.layers[0][h].kept.begin(), got.layers[0][h].kept.end())) << "head " << h;
    }
    expect_same_kept_ties_aside(got, *want, 1e-4);

    // Gather: a one-layer full cache with random f16 K/V, compressed into `heads` segments.
    const int hd = 64, L = ws.prompt_len;
    cuda::CudaKvCache full(KvCacheSpec::uniform(1, c.n_kv, hd, c.n_heads / c.n_kv, L));
    std::vector<int32_t> pos(L);
    for (int i = 0; i < L; ++i) pos[i] = i;
    std::vector<std::vector<uint16_t>> kh(c.n_kv), vh(c.n_kv);
    for (int h = 0; h < c.n_kv; ++h) {
        const auto kf = random_floats(static_cast<std::size_t>(L) * hd, 100 + h), vf = random_floats(static_cast<std::size_t>(L) * hd, 200 + h);
        kh[h].resize(kf.size());
        vh[h].resize(vf.size());
        for (std::size_t i = 0; i < kf.size(); ++i) {
            kh[h][i] = f32_to_f16(kf[i]);
            vh[h][i] = f32_to_f16(vf[i]);
        }
        const int64_t off = full.offset(0, h);
        cuda::check(cudaMemcpy(full.k() + off * hd, kh[h].data(), kh[h].size() * 2, cudaMemcpyHostToDevice), "k");
        cuda::check(cudaMemcpy(full.v() + off * hd, vh[h].data(), vh[h].size() * 2, cudaMemcpyHostToDevice), "v");
        cuda::check(cudaMemcpy(full.pos() + off, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice), "pos");
        full.commit_append(0, h, pos.data(), L);
    }
    const int extra = 3;  // already in the compressed cache: the gather appends after existing entries
    cuda::CudaKvCache small(KvCacheSpec::uniform(1, heads, hd, c.n_heads / heads, c.budget + extra));
    std::vector<int32_t> early = {0, 1, 2};
    std::vector<uint16_t> zeros(static_cast<std::size_t>(extra) * hd, 0);
    for (int h = 0; h < heads; ++h) {
        const int64_t off = small.offset(0, h);
        cuda::check(cudaMemcpy(small.k() + off * hd, zeros.data(), zeros.size() * 2, cudaMemcpyHostToDevice), "k0");
        cuda::check(cudaMemcpy(small.v() + off * hd, zeros.data(), zeros.size() * 2, cudaMemcpyHostToDevice), "v0");
        cuda::check(cudaMemcpy(small.pos() + off, early.data(), early.size() * 4, cudaMemcpyHostToDevice), "p0");
        small.commit_append(0, h, early.data(), extra);
    }
    kernels::SnapGatherArgs ga;
    ga.src = full.layer_view(0);
    ga.dst = small.layer_view(0);
    ga.kept = d_kept.as<int32_t>();
    ga.k = k;
    ga.window_begin = c.n_prefix;
    ga.window_end = L;
    cuda::check(kernels::snapkv_gather(ga, nullptr), "snapkv_gather");
    for (int h = 0; h < heads; ++h) {
        const int sh = h / (heads / c.n_kv), count = k + c.window;
        const int64_t at = small.offset(0, h) + extra;
        const auto gk = from_device<uint16_t>(small.k() + at * hd, static_cast<std::size_t>(count) * hd);
        const auto gv = from_device<uint16_t>(small.v() + at * hd, static_cast<std::size_t>(count) * hd);
        const auto gp = from_device<int32_t>(small.pos() + at, static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            const int e = i < k ? kept[static_cast<std::size_t>(h) * k + i] : c.n_prefix + (i - k);
            ASSERT_EQ(gp[i], e) << "head " << h << " entry " << i;
            for (int d = 0; d < hd; ++d) {
                ASSERT_EQ(gk[static_cast<std::size_t>(i) * hd + d], kh[sh][static_cast<std::size_t>(e) * hd + d]);
                ASSERT_EQ(gv[static_cast<std::size_t>(i) * hd + d], vh[sh][static_cast<std::size_t>(e) * hd + d]);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SnapKvKernels,
                         ::testing::Values(SnapCase{8, 2, 1500, 16, 144, GqaMode::KvHead, Pooling::Max},
                                           SnapCase{8, 2, 1500, 16, 144, GqaMode::KvHead, Pooling::Avg},
                                           SnapCase{8, 2, 777, 32, 300, GqaMode::QueryHead, Pooling::Max},
                                           SnapCase{4, 4, 2049, 8, 1032, GqaMode::KvHead, Pooling::Avg}),
                         [](const auto& info) {
                             const SnapCase& c = info.param;
                             return "h" + std::to_string(c.n_heads) + "_kv" + std::to_string(c.n_kv) + "_n" +
                                    std::to_string(c.n_prefix) + "_B" + std::to_string(c.budget) +
                                    (c.gqa == GqaMode::KvHead ? "_kvhead" : "_queryhead") +
                                    (c.pooling == Pooling::Max ? "_max" : "_avg");
                         });

// Equal values at the cut-off: exactly k positions, every larger value kept, the ties by position.
TEST(SnapKvKernels, TopKTiesTakeTheLowestPositions) {
    SNAPDOC_REQUIRE_CUDA();
    const int n = 1000, k = 100;
    std::vector<float> v(n, 1.0f);
    for (int i = 0; i < n; i += 37) v[i] = 2.0f;  // 28 larger values
    v[500] = -3.0f;
    auto d = to_device(v);
    cuda::DeviceBuffer out(k * 4, "out");
    cuda::check(kernels::top_k_rows(d.as<float>(), 1, n, k, out.as<int32_t>(), nullptr), "top_k");
    const auto got = from_device<int32_t>(out.get(), k);
    std::vector<int32_t> want;
    for (int i = 0; i < n; i += 37) want.push_back(i);
    for (int i = 0; static_cast<int>(want.size()) < k; ++i)
        if (i % 37 != 0) want.push_back(i);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
    EXPECT_EQ(kernels::top_k_rows(d.as<float>(), 1, n, n + 1, out.as<int32_t>(), nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace snapdoc
