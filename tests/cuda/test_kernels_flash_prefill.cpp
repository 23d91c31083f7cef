// The tensor-core prefill attention (kernels/flash_prefill.h) and window scores
// (kernels/flash_window_scores.h) against a double-precision reference and against the CUDA-core
// kernels (kernels/attention.h, kernels/window_scores.h), on ragged one-layer caches: causal rows,
// segments that skip positions, a head whose first entries are missing (early rows see nothing),
// Mistral's sliding window, GQA 1:1 / 2:1 / 4:1, head_dim 8 / 64 / 96 / 128 (zero-padded tiles),
// row and key counts that are not multiples of the 16-row / 32- or 64-key tiles, and 33K keys for
// the window scores. Tolerances are f16's: the kernels round the scaled queries and the softmax
// weights to f16 for the tensor cores (K/V already are f16 in the cache).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <sstream>

#include "engine/model/dtype.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "kernels/attention.h"
#include "kernels/flash_prefill.h"
#include "kernels/flash_window_scores.h"
#include "kernels/window_scores.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/cuda/ragged_test_cache.h"

namespace snapdoc {
namespace {

using namespace cudatest;

struct Shape {
    int head_dim, group, cache_heads, prompt_len, rows;
    bool ragged;
    int window;  // sliding window, 0 = none
};

std::ostream& operator<<(std::ostream& os, const Shape& s) {
    return os << "hd" << s.head_dim << "_g" << s.group << "_kv" << s.cache_heads << "_L" << s.prompt_len
              << "_n" << s.rows << (s.ragged ? "_ragged" : "_full")
              << (s.window ? "_sw" + std::to_string(s.window) : "");
}

// The shared one-layer ragged cache (tests/cuda/ragged_test_cache.h) built from this file's shapes.
struct FlashTestCache : RaggedTestCache {
    FlashTestCache(const Shape& s, uint32_t seed)
        : RaggedTestCache({s.head_dim, s.group, s.cache_heads, s.prompt_len, s.ragged}, seed) {}
};

bool sees(int32_t key_pos, int32_t q_pos, int window) {
    return key_pos <= q_pos && (window <= 0 || key_pos > q_pos - window);
}

// Scaled scores of query row r, head h over the entries of its cache head it sees (double).
struct RowScores {
    std::vector<int> entries;
    std::vector<double> s;
    double lse = -INFINITY;
};
RowScores row_scores(const FlashTestCache& tc, const std::vector<float>& q, int qd, int r, int h, int32_t p,
                     const Shape& s) {
    RowScores out;
    const int ch = h / s.group;
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    double mx = -INFINITY;
    for (std::size_t j = 0; j < tc.pos[ch].size(); ++j) {
        if (!sees(tc.pos[ch][j], p, s.window)) continue;
        double dot = 0;
        for (int d = 0; d < s.head_dim; ++d)
            dot += static_cast<double>(q[static_cast<std::size_t>(r) * qd + h * s.head_dim + d]) *
                   tc.k[ch][j * s.head_dim + d];
        out.entries.push_back(static_cast<int>(j));
        out.s.push_back(dot * scale);
        mx = std::max(mx, out.s.back());
    }
    if (out.entries.empty()) return out;
    double z = 0;
    for (double x : out.s) z += std::exp(x - mx);
    out.lse = mx + std::log(z);
    return out;
}

std::vector<int32_t> query_positions(const Shape& s) { return last_query_positions(s.rows, s.prompt_len); }

// Arguments of the CUDA-core attention (kernels/attention.h) on the same queries and cache, in one
// split (no scratch needed): the second opinion on the tensor-core results.
kernels::AttentionArgs unsplit_core_attention(const cuda::DeviceBuffer& q, const cuda::DeviceBuffer& q_pos, int qd, int n,
                                              int n_heads, float scale, const kernels::KvLayerView& cache, int max_len,
                                              float* out) {
    kernels::AttentionArgs c;
    c.q = q.as<float>();
    c.q_stride = qd;
    c.q_pos = q_pos.as<int32_t>();
    c.n = n;
    c.n_heads = n_heads;
    c.scale = scale;
    c.cache = cache;
    c.max_len = max_len;
    c.out = out;
    c.out_stride = qd;
    c.sm_count = 1;
    return c;
}

class FlashAttentionKernel : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(FlashAttentionKernel, MatchesDoubleReferenceAndCudaCoreKernel) {
    const Shape s = GetParam();
    const int n_heads = s.cache_heads * s.group, qd = n_heads * s.head_dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    FlashTestCache tc(s, 41);
    const auto qpos = query_positions(s);
    const auto q = random_floats(static_cast<std::size_t>(s.rows) * qd, 42, 1.5f);

    // Double reference: output and log-sum-exp.
    std::vector<float> want(q.size(), 0.0f), want_lse(static_cast<std::size_t>(s.rows) * n_heads);
    for (int r = 0; r < s.rows; ++r)
        for (int h = 0; h < n_heads; ++h) {
            const RowScores rs = row_scores(tc, q, qd, r, h, qpos[r], s);
            want_lse[static_cast<std::size_t>(r) * n_heads + h] = static_cast<float>(rs.lse);
            for (std::size_t e = 0; e < rs.entries.size(); ++e) {
                const double w = std::exp(rs.s[e] - rs.lse);
                for (int d = 0; d < s.head_dim; ++d)
                    want[static_cast<std::size_t>(r) * qd + h * s.head_dim + d] += static_cast<float>(
                        w * tc.v[h / s.group][static_cast<std::size_t>(rs.entries[e]) * s.head_dim + d]);
            }
        }

    auto dq = to_device(q), dpos = to_device(qpos);
    // A wider output row than q_dim: the kernel must honour out_stride.
    const int out_stride = qd + 8;
    cuda::DeviceBuffer dout(static_cast<std::size_t>(s.rows) * out_stride * 4, "out"),
        dlse(static_cast<std::size_t>(s.rows) * n_heads * 4, "lse");
    kernels::FlashAttentionArgs a;
    a.q = dq.as<float>();
    a.q_stride = qd;
    a.q_pos = dpos.as<int32_t>();
    a.n = s.rows;
    a.n_heads = n_heads;
    a.scale = scale;
    a.sliding_window = s.window;
    a.cache = tc.cache->layer_view(0);
    a.out = dout.as<float>();
    a.out_stride = out_stride;
    a.lse = dlse.as<float>();
    ASSERT_EQ(kernels::flash_attention(a, nullptr), cudaSuccess) << s;
    const auto wide = from_device<float>(dout.get(), static_cast<std::size_t>(s.rows) * out_stride);
    std::vector<float> got(q.size());
    for (int r = 0; r < s.rows; ++r)
        std::copy_n(wide.begin() + static_cast<std::ptrdiff_t>(r) * out_stride, qd,
                    got.begin() + static_cast<std::ptrdiff_t>(r) * qd);
    const double e = nmse(got, want);
    std::printf("%s: NMSE %.3g, max |diff| %.2g\n", ::testing::PrintToString(s).c_str(), e,
                max_abs_diff(got, want));
    EXPECT_LT(e, 2e-6) << s;
    EXPECT_LT(max_abs_diff(got, want), 5e-3) << s;

    const auto lse = from_device<float>(dlse.get(), want_lse.size());
    for (std::size_t i = 0; i < lse.size(); ++i) {
        if (std::isinf(want_lse[i])) {
            EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << s << " slot " << i;
            for (int d = 0; d < s.head_dim; ++d)  // no visible key: zeros, like the CPU
                EXPECT_EQ(got[(i / n_heads) * qd + (i % n_heads) * s.head_dim + d], 0.0f);
        } else {
            EXPECT_NEAR(lse[i], want_lse[i], 5e-3) << s << " slot " << i;
        }
    }

    // The CUDA-core kernel on the same cache (it has no sliding window).
    if (s.window == 0) {
        cuda::DeviceBuffer dcore(q.size() * 4, "core out");
        const kernels::AttentionArgs c =
            unsplit_core_attention(dq, dpos, qd, s.rows, n_heads, scale, a.cache, tc.max_len, dcore.as<float>());
        ASSERT_EQ(kernels::attention(c, nullptr), cudaSuccess);
        const auto core = from_device<float>(dcore.get(), q.size());
        EXPECT_LT(nmse(got, core), 2e-6) << s;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlashAttentionKernel,
                         ::testing::Values(Shape{64, 1, 2, 300, 45, false,
                                                 0},  // causal, MHA, 45 rows (3 tiles of 16 rows minus 3)
                                           Shape{64, 1, 2, 300, 45, true, 0},     // ragged segments
                                           Shape{128, 4, 2, 257, 33, true, 0},    // GQA 4:1, hd 128, ragged
                                           Shape{64, 4, 1, 200, 37, false, 0},    // GQA 4:1, hd 64
                                           Shape{128, 1, 2, 150, 29, false, 40},  // sliding window
                                           Shape{64, 4, 2, 300, 50, true, 64},    // window + ragged + GQA
                                           Shape{8, 2, 2, 70, 70, false, 0},      // head_dim 8 in the 64 tile
                                           Shape{96, 2, 1, 100, 17, false,
                                                 0}),  // head_dim 96 in the 128 tile
                         [](const auto& info) {
                             std::ostringstream os;
                             os << info.param;
                             return os.str();
                         });

TEST(FlashAttentionKernelArgs, RejectsBadShapes) {
    SNAPDOC_REQUIRE_CUDA();
    const Shape s{64, 1, 2, 20, 4, false, 0};
    FlashTestCache tc(s, 3);
    kernels::FlashAttentionArgs a;
    a.n = 4;
    a.n_heads = 3;  // not a multiple of the 2 cache heads
    a.cache = tc.cache->layer_view(0);
    EXPECT_EQ(kernels::flash_attention(a, nullptr), cudaErrorInvalidValue);
    a.n_heads = 2;
    a.sliding_window = -1;
    EXPECT_EQ(kernels::flash_attention(a, nullptr), cudaErrorInvalidValue);
    cudaGetLastError();
}

struct WindowCase {
    int head_dim, group, cache_heads, prompt_len, window_rows, sliding_window;
};

std::ostream& operator<<(std::ostream& os, const WindowCase& w) {
    return os << "hd" << w.head_dim << "_g" << w.group << "_kv" << w.cache_heads << "_L" << w.prompt_len
              << "_W" << w.window_rows << "_sw" << w.sliding_window;
}

class FlashWindowScoreKernel : public ::testing::TestWithParam<WindowCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

// Σ over window rows of softmax(q_i·K) restricted to prefix keys, against a double reference (and
// against the CUDA-core window-score kernel where it applies: no sliding window).
TEST_P(FlashWindowScoreKernel, MatchesReference) {
    const WindowCase w = GetParam();
    const Shape s{w.head_dim, w.group, w.cache_heads, w.prompt_len, w.window_rows, false, w.sliding_window};
    const int n_heads = w.cache_heads * w.group, qd = n_heads * w.head_dim,
              n_prefix = w.prompt_len - w.window_rows;
    const float scale = 1.0f / std::sqrt(static_cast<float>(w.head_dim));
    FlashTestCache tc(s, 51);
    std::vector<int32_t> qpos;
    for (int i = 0; i < w.window_rows; ++i) qpos.push_back(n_prefix + i);
    const auto q = random_floats(static_cast<std::size_t>(w.window_rows) * qd, 52, 1.5f);

    std::vector<float> want(static_cast<std::size_t>(n_heads) * n_prefix, 0.0f);
    for (int h = 0; h < n_heads; ++h)
        for (int i = 0; i < w.window_rows; ++i) {
            const RowScores rs = row_scores(tc, q, qd, i, h, qpos[i], s);
            for (std::size_t e = 0; e < rs.entries.size(); ++e)
                if (rs.entries[e] < n_prefix)
                    want[static_cast<std::size_t>(h) * n_prefix + rs.entries[e]] +=
                        static_cast<float>(std::exp(rs.s[e] - rs.lse));
        }

    int sm = 1;
    cuda::check(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0), "sm count");
    auto dq = to_device(q), dpos = to_device(qpos);
    cuda::DeviceBuffer dscores(want.size() * 4, "scores");
    const int64_t floats =
        kernels::flash_window_scores_scratch_floats(w.window_rows, n_heads, w.cache_heads, tc.max_len, sm);
    cuda::DeviceBuffer scratch(static_cast<std::size_t>(floats) * 4, "scratch");
    kernels::FlashWindowScoreArgs a;
    a.q = dq.as<float>();
    a.q_stride = qd;
    a.q_pos = dpos.as<int32_t>();
    a.n_window = w.window_rows;
    a.n_heads = n_heads;
    a.scale = scale;
    a.sliding_window = w.sliding_window;
    a.cache = tc.cache->layer_view(0);
    a.max_len = tc.max_len;
    a.n_prefix = n_prefix;
    a.out = dscores.as<float>();
    a.scratch = scratch.as<float>();
    a.sm_count = sm;
    ASSERT_EQ(kernels::flash_window_scores(a, nullptr), cudaSuccess);
    const auto got = from_device<float>(dscores.get(), want.size());
    const double e = nmse(got, want);
    std::printf("hd%d g%d L%d W%d sw%d (%d key slices): NMSE %.3g, max |diff| %.2g\n", w.head_dim, w.group,
                w.prompt_len, w.window_rows, w.sliding_window,
                kernels::flash_window_score_splits(w.window_rows, n_heads, w.cache_heads, tc.max_len, sm), e,
                max_abs_diff(got, want));
    EXPECT_LT(e, 2e-6);
    EXPECT_LT(max_abs_diff(got, want), 2e-3);

    if (w.sliding_window == 0 && w.prompt_len <= 4096) {
        // The CUDA-core pair: attention() for lse, then window_scores().
        cuda::DeviceBuffer dout(q.size() * 4, "out"),
            dlse(static_cast<std::size_t>(w.window_rows) * n_heads * 4, "lse"),
            dcore(want.size() * 4, "core scores");
        kernels::AttentionArgs c =
            unsplit_core_attention(dq, dpos, qd, w.window_rows, n_heads, scale, a.cache, tc.max_len, dout.as<float>());
        c.lse = dlse.as<float>();
        ASSERT_EQ(kernels::attention(c, nullptr), cudaSuccess);
        kernels::WindowScoreArgs ws;
        ws.q = dq.as<float>();
        ws.q_stride = qd;
        ws.q_pos = dpos.as<int32_t>();
        ws.lse = dlse.as<float>();
        ws.n_window = w.window_rows;
        ws.n_heads = n_heads;
        ws.scale = scale;
        ws.cache = a.cache;
        ws.n_prefix = n_prefix;
        ws.out = dcore.as<float>();
        ASSERT_EQ(kernels::window_scores(ws, nullptr), cudaSuccess);
        EXPECT_LT(nmse(got, from_device<float>(dcore.get(), want.size())), 2e-6);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlashWindowScoreKernel,
                         ::testing::Values(WindowCase{64, 1, 2, 300, 16, 0},
                                           WindowCase{128, 4, 2, 1000, 33, 0},
                                           WindowCase{128, 8, 1, 257, 1, 0}, WindowCase{8, 2, 2, 129, 32, 0},
                                           WindowCase{64, 2, 2, 700, 24, 100},
                                           // 33K keys for a few window rows: the first pass splits the keys.
                                           WindowCase{64, 2, 1, 33000, 8, 0}),
                         [](const auto& info) {
                             std::ostringstream os;
                             os << info.param;
                             return os.str();
                         });

// The key split of the first pass engages for long rows and stays off for short ones.
TEST(FlashWindowScorePlan, SplitsLongRowsOnly) {
    EXPECT_EQ(kernels::flash_window_score_splits(32, 32, 8, 300, 132), 1);
    EXPECT_GT(kernels::flash_window_score_splits(32, 32, 8, 100000, 132), 1);
    EXPECT_EQ(kernels::flash_window_score_splits(0, 32, 8, 100000, 132), 1);
    EXPECT_EQ(kernels::flash_window_scores_scratch_floats(32, 32, 8, 300, 132), 32 * 32 * 3);
}

}  // namespace
}  // namespace snapdoc
