// The attention and window-score kernels against the CPU backend's attention and a double-precision
// reference, on ragged caches (every head keeps its own subset of positions), over awkward shapes:
// lengths that are not multiples of the tiles, head dims 8/64/128, GQA ratios 1/4/8, single-row
// (split-KV) and multi-row launches, rows that see no key at all, up to 32K keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "kernels/attention.h"
#include "kernels/window_scores.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/cuda/ragged_test_cache.h"

namespace snapdoc {
namespace {

using namespace cudatest;

struct Shape {
    int head_dim, group, cache_heads, prompt_len, rows;
    bool ragged;
};

std::ostream& operator<<(std::ostream& os, const Shape& s) {
    return os << "hd" << s.head_dim << "_g" << s.group << "_kv" << s.cache_heads << "_L" << s.prompt_len << "_n" << s.rows
              << (s.ragged ? "_ragged" : "_full");
}

// The shared one-layer ragged cache (tests/cuda/ragged_test_cache.h) built from this file's shapes.
struct TestCache : RaggedTestCache {
    TestCache(const Shape& s, uint32_t seed)
        : RaggedTestCache({s.head_dim, s.group, s.cache_heads, s.prompt_len, s.ragged}, seed) {}
};

std::vector<int32_t> query_positions(const Shape& s) { return last_query_positions(s.rows, s.prompt_len); }

class AttentionKernel : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(AttentionKernel, MatchesCpuAttentionAndLogSumExp) {
    const Shape s = GetParam();
    const int n_heads = s.cache_heads * s.group, qd = n_heads * s.head_dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    TestCache tc(s, 11);
    const auto qpos = query_positions(s);
    const auto q = random_floats(static_cast<std::size_t>(s.rows) * qd, 12);

    // CPU reference (the backend's own attention) on the same f16-rounded numbers.
    std::vector<cpu::CacheHeadView> views(s.cache_heads);
    for (int h = 0; h < s.cache_heads; ++h)
        views[h] = {tc.k[h].data(), tc.v[h].data(), tc.pos[h].data(), static_cast<int>(tc.pos[h].size())};
    std::vector<float> want(q.size());
    cpu::AttentionArgs ca;
    ca.q = q.data();
    ca.q_positions = qpos.data();
    ca.n = s.rows;
    ca.n_heads = n_heads;
    ca.head_dim = s.head_dim;
    ca.group = s.group;
    ca.heads = views.data();
    ca.scale = scale;
    ca.out = want.data();
    ThreadPool pool(2);
    cpu::attention(ca, pool);

    int sm = 1;
    cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
    auto dq = to_device(q), dpos = to_device(qpos);
    cuda::DeviceBuffer dout(q.size() * 4, "out"), dlse(static_cast<std::size_t>(s.rows) * n_heads * 4, "lse");
    int max_len = 0;
    for (const auto& p : tc.pos) max_len = std::max(max_len, static_cast<int>(p.size()));
    const int64_t scratch_floats = kernels::attention_scratch_floats(s.rows, n_heads, s.cache_heads, s.head_dim, max_len, sm);
    cuda::DeviceBuffer scratch(static_cast<std::size_t>(std::max<int64_t>(scratch_floats, 1)) * 4, "scratch");
    kernels::AttentionArgs a;
    a.q = dq.as<float>();
    a.q_stride = qd;
    a.q_pos = dpos.as<int32_t>();
    a.n = s.rows;
    a.n_heads = n_heads;
    a.scale = scale;
    a.cache = tc.cache->layer_view(0);
    a.max_len = max_len;
    a.out = dout.as<float>();
    a.out_stride = qd;
    a.lse = dlse.as<float>();
    a.scratch = scratch.as<float>();
    a.sm_count = sm;
    cuda::check(kernels::attention(a, nullptr), "attention");
    const auto got = from_device<float>(dout.get(), q.size());
    EXPECT_LT(nmse(got, want), 1e-9) << s << " (split into "
                                     << kernels::plan_attention(s.rows, n_heads, s.cache_heads, max_len, sm).n_split << ")";
    EXPECT_LT(max_abs_diff(got, want), 1e-4);

    // Log-sum-exp in double.
    const auto lse = from_device<float>(dlse.get(), static_cast<std::size_t>(s.rows) * n_heads);
    for (int r = 0; r < s.rows; ++r)
        for (int h = 0; h < n_heads; ++h) {
            const int ch = h / s.group;
            const auto& p = tc.pos[ch];
            double mx = -INFINITY;
            std::vector<double> sc;
            for (std::size_t j = 0; j < p.size() && p[j] <= qpos[r]; ++j) {
                double dot = 0;
                for (int d = 0; d < s.head_dim; ++d)
                    dot += static_cast<double>(q[static_cast<std::size_t>(r) * qd + h * s.head_dim + d]) * tc.k[ch][j * s.head_dim + d];
                sc.push_back(dot * scale);
                mx = std::max(mx, sc.back());
            }
            const float l = lse[static_cast<std::size_t>(r) * n_heads + h];
            if (sc.empty()) {
                EXPECT_TRUE(std::isinf(l) && l < 0) << "row " << r << " head " << h;
                continue;
            }
            double z = 0;
            for (double x : sc) z += std::exp(x - mx);
            EXPECT_NEAR(l, mx + std::log(z), 1e-4) << "row " << r << " head " << h;
        }
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionKernel,
                         ::testing::Values(Shape{64, 1, 2, 300, 45, false}, Shape{64, 1, 2, 300, 45, true},
                                           Shape{128, 4, 2, 257, 33, true}, Shape{128, 8, 1, 1000, 1, false},
                                           Shape{64, 4, 8, 5000, 1, true}, Shape{8, 2, 4, 70, 70, false},
                                           Shape{128, 1, 4, 3000, 3, true}, Shape{128, 8, 2, 129, 129, false},
                                           Shape{96, 4, 2, 700, 2, true},
                                           // 32K keys: a long decode row through split-KV (2 cache heads
                                           // keep it to a few seconds under the CPU emulation).
                                           Shape{128, 4, 2, 32768, 1, true}),
                         [](const auto& info) {
                             std::ostringstream os;
                             os << info.param;
                             return os.str();
                         });

class WindowScoreKernel : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

// Σ over window rows of softmax(q_i·K) restricted to prefix keys, against a double reference.
TEST_P(WindowScoreKernel, MatchesReference) {
    const auto [head_dim, group, prompt_len, window] = GetParam();
    const Shape s{head_dim, group, 2, prompt_len, window, false};
    const int n_heads = 2 * group, qd = n_heads * head_dim, n_prefix = prompt_len - window;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    TestCache tc(s, 21);
    std::vector<int32_t> qpos;
    for (int i = 0; i < window; ++i) qpos.push_back(n_prefix + i);
    const auto q = random_floats(static_cast<std::size_t>(window) * qd, 22, 1.5f);

    int sm = 1;
    cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
    auto dq = to_device(q), dpos = to_device(qpos);
    cuda::DeviceBuffer dout(q.size() * 4, "out"), dlse(static_cast<std::size_t>(window) * n_heads * 4, "lse"),
        dscores(static_cast<std::size_t>(n_heads) * n_prefix * 4, "scores");
    const int64_t scratch_floats = kernels::attention_scratch_floats(window, n_heads, 2, head_dim, prompt_len, sm);
    cuda::DeviceBuffer scratch(static_cast<std::size_t>(std::max<int64_t>(scratch_floats, 1)) * 4, "scratch");
    kernels::AttentionArgs a;
    a.q = dq.as<float>();
    a.q_stride = qd;
    a.q_pos = dpos.as<int32_t>();
    a.n = window;
    a.n_heads = n_heads;
    a.scale = scale;
    a.cache = tc.cache->layer_view(0);
    a.max_len = prompt_len;
    a.out = dout.as<float>();
    a.out_stride = qd;
    a.lse = dlse.as<float>();
    a.scratch = scratch.as<float>();
    a.sm_count = sm;
    cuda::check(kernels::attention(a, nullptr), "attention");
    kernels::WindowScoreArgs w;
    w.q = dq.as<float>();
    w.q_stride = qd;
    w.q_pos = dpos.as<int32_t>();
    w.lse = dlse.as<float>();
    w.n_window = window;
    w.n_heads = n_heads;
    w.scale = scale;
    w.cache = a.cache;
    w.n_prefix = n_prefix;
    w.out = dscores.as<float>();
    cuda::check(kernels::window_scores(w, nullptr), "window_scores");
    const auto got = from_device<float>(dscores.get(), static_cast<std::size_t>(n_heads) * n_prefix);

    std::vector<float> want(got.size(), 0.0f);
    for (int h = 0; h < n_heads; ++h) {
        const int ch = h / group;
        for (int i = 0; i < window; ++i) {
            std::vector<double> sc(qpos[i] + 1);
            double mx = -INFINITY;
            for (int j = 0; j <= qpos[i]; ++j) {
                double dot = 0;
                for (int d = 0; d < head_dim; ++d)
                    dot += static_cast<double>(q[static_cast<std::size_t>(i) * qd + h * head_dim + d]) * tc.k[ch][static_cast<std::size_t>(j) * head_dim + d];
                sc[j] = dot * scale;
                mx = std::max(mx, sc[j]);
            }
            double z = 0;
            for (double x : sc) z += std::exp(x - mx);
            for (int j = 0; j < n_prefix; ++j) want[static_cast<std::size_t>(h) * n_prefix + j] += static_cast<float>(std::exp(sc[j] - mx) / z);
        }
    }
    EXPECT_LT(nmse(got, want), 1e-9);
    EXPECT_LT(max_abs_diff(got, want), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Shapes, WindowScoreKernel,
                         ::testing::Values(std::make_tuple(64, 1, 300, 16), std::make_tuple(128, 4, 1000, 33),
                                           std::make_tuple(128, 8, 257, 1), std::make_tuple(8, 2, 129, 32),
                                           std::make_tuple(64, 4, 2100, 64)));

}  // namespace
}  // namespace snapdoc
