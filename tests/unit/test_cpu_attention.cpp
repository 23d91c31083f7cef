// The tiled CPU attention (and the old kernel the bench compares it with) and the SnapKV window
// scores against a double-precision direct softmax: ragged per-head caches (each head keeps a
// different subset of positions, as SnapKV's compressed cache does), GQA groups, the head sizes of
// real models and odd small ones, causal chunks after earlier chunks, sliding windows, blocks and
// tiles cut at odd places, decode (n = 1), and long rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "engine/kv/f16_rows.h"
#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cpu/attention_baseline.h"
#include "engine/runtime/cpu/attention_decode.h"
#include "engine/runtime/cpu/attention_tile.h"
#include "engine/runtime/cpu/attention_vec.h"
#include "engine/runtime/cpu/attention_window_scores.h"

namespace snapdoc::cpu {
namespace {

struct Head {
    std::vector<float> k, v;
    std::vector<int32_t> pos;
    std::vector<uint16_t> k16, v16;  // set by as_f16_cache
};

struct Problem {
    int hd = 16, n_heads = 2, group = 1, window = 0;
    std::vector<Head> heads;
    std::vector<CacheHeadView> views;
    std::vector<float> q;
    std::vector<int32_t> qpos;
    int n() const { return static_cast<int>(qpos.size()); }
    float scale() const { return 1.0f / std::sqrt(static_cast<float>(hd)); }

    AttentionArgs args(float* out, float* lse) const {
        AttentionArgs a;
        a.q = q.data();
        a.q_positions = qpos.data();
        a.n = n();
        a.n_heads = n_heads;
        a.head_dim = hd;
        a.group = group;
        a.heads = views.data();
        a.scale = scale();
        a.sliding_window = window;
        a.out = out;
        a.lse = lse;
        return a;
    }
    bool sees(int32_t p, int32_t kp) const { return kp <= p && kp >= first_visible_position(p, window); }
    double dot(int r, int h, int j) const {
        const Head& H = heads[h / group];
        double s = 0;
        for (int d = 0; d < hd; ++d)
            s += double(q[(int64_t(r) * n_heads + h) * hd + d]) * H.k[int64_t(j) * hd + d];
        return s * scale();
    }
    // log Σ exp over the keys row r / head h sees (-inf when none).
    double ref_lse(int r, int h) const {
        const Head& H = heads[h / group];
        double mx = -INFINITY, z = 0;
        for (std::size_t j = 0; j < H.pos.size(); ++j)
            if (sees(qpos[r], H.pos[j])) mx = std::max(mx, dot(r, h, int(j)));
        if (mx == -INFINITY) return mx;
        for (std::size_t j = 0; j < H.pos.size(); ++j)
            if (sees(qpos[r], H.pos[j])) z += std::exp(dot(r, h, int(j)) - mx);
        return mx + std::log(z);
    }
};

// Random keys/values; cache head c has lengths[c] entries at ascending positions (every position
// when dense, else gaps of 1..3), queries at the given positions.
Problem make_problem(int hd, int n_heads, int group, std::vector<int> lengths, bool dense,
                     std::vector<int32_t> qpos, int window, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.f, 1.f);
    Problem p;
    p.hd = hd, p.n_heads = n_heads, p.group = group, p.window = window, p.qpos = std::move(qpos);
    const int cache_heads = n_heads / group;
    p.heads.resize(cache_heads);
    p.views.resize(cache_heads);
    for (int c = 0; c < cache_heads; ++c) {
        Head& H = p.heads[c];
        const int len = lengths[c % lengths.size()];
        int32_t at = dense ? 0 : int32_t(rng() % 3);
        for (int j = 0; j < len; ++j, at += dense ? 1 : 1 + int32_t(rng() % 3)) H.pos.push_back(at);
        H.k.resize(int64_t(len) * hd);
        H.v.resize(H.k.size());
        for (auto& x : H.k) x = 2.0f * nd(rng);  // sharper than unit scores, so the softmax is uneven
        for (auto& x : H.v) x = nd(rng);
        p.views[c] = {H.k.data(), H.v.data(), H.pos.data(), len};
    }
    p.q.resize(int64_t(p.n()) * n_heads * hd);
    for (auto& x : p.q) x = nd(rng);
    return p;
}

// The same problem over an f16 cache: K and V rounded to f16, the views pointing at the f16
// entries (so the kernels must convert them), the reference computed from the rounded values.
Problem as_f16_cache(Problem p) {
    for (std::size_t c = 0; c < p.heads.size(); ++c) {
        Head& H = p.heads[c];
        for (auto [f32, f16] : {std::pair{&H.k, &H.k16}, std::pair{&H.v, &H.v16}}) {
            f16->resize(f32->size());
            f32_to_f16_row(f32->data(), f16->data(), static_cast<int64_t>(f32->size()));
            f16_to_f32_row(f16->data(), f32->data(), static_cast<int64_t>(f32->size()));
        }
        p.views[c] = {nullptr,      nullptr,     H.pos.data(), static_cast<int>(H.pos.size()),
                      H.k16.data(), H.v16.data()};
    }
    return p;
}

// A prefill chunk: the last n of len cache positions query the dense cache (causal within it).
std::vector<int32_t> chunk_positions(int len, int n) {
    std::vector<int32_t> qp(n);
    for (int i = 0; i < n; ++i) qp[i] = len - n + i;
    return qp;
}

using Kernel = void (*)(const AttentionArgs&, ThreadPool&);

// Rows [0, rows) of the output (all when rows < 0) against the float64 softmax.
void expect_matches_reference(const Problem& p, Kernel kernel, bool check_lse, const std::string& what,
                              int rows = -1) {
    SCOPED_TRACE(what);
    std::vector<float> out(p.q.size(), -7.0f), lse(int64_t(p.n()) * p.n_heads, -7.0f);
    ThreadPool pool(2);
    kernel(p.args(out.data(), check_lse ? lse.data() : nullptr), pool);
    for (int r = 0; r < (rows < 0 ? p.n() : rows); ++r)
        for (int h = 0; h < p.n_heads; ++h) {
            const Head& H = p.heads[h / p.group];
            const double l = p.ref_lse(r, h);
            if (check_lse) {
                if (l == -INFINITY)
                    ASSERT_EQ(lse[r * p.n_heads + h], -INFINITY) << "row " << r << " head " << h;
                else
                    ASSERT_NEAR(lse[r * p.n_heads + h], l, 1e-4 * std::max(1.0, std::abs(l)))
                        << "row " << r << " head " << h;
            }
            std::vector<double> o(p.hd, 0.0);
            for (std::size_t j = 0; j < H.pos.size(); ++j)
                if (l != -INFINITY && p.sees(p.qpos[r], H.pos[j])) {
                    const double w = std::exp(p.dot(r, h, int(j)) - l);
                    for (int d = 0; d < p.hd; ++d) o[d] += w * H.v[j * p.hd + d];
                }
            for (int d = 0; d < p.hd; ++d)
                ASSERT_NEAR(out[(int64_t(r) * p.n_heads + h) * p.hd + d], o[d], 5e-5)
                    << "row " << r << " head " << h << " dim " << d;
        }
}

TEST(CpuAttention, RaggedHeadsMatchDirectSoftmax) {
    // Queries cut through sparse caches: some see one entry, some part, some all, some beyond.
    const int rows = attention_block_rows(3);
    for (int n : {1, 5, 2 * rows + 6})
        for (int len0 : {1, kAttentionTile + 7}) {
            std::vector<int32_t> qpos = {0, 40, 90, 200, 100000};
            qpos.resize(std::min<int>(n, 5));
            for (int r = 5; r < n; ++r) qpos.push_back(3 * r);
            std::sort(qpos.begin(), qpos.end());
            const Problem p = make_problem(16, 6, 3, {len0, len0 + 13}, false, qpos, 0, 7 + n + len0);
            const std::string what = "n " + std::to_string(n) + " len " + std::to_string(len0);
            expect_matches_reference(p, attention, true, what);
            expect_matches_reference(p, attention_baseline, false, what + " (baseline)");
        }
}

TEST(CpuAttention, GqaGroupsAndHeadSizes) {
    // (head_dim, group) over the sizes of real models and odd small ones; a prefill chunk of rows
    // that is not a multiple of the block after earlier chunks, over ragged dense caches.
    const int cases[][2] = {{64, 1}, {64, 2}, {80, 4}, {96, 8}, {128, 2}, {128, 8}, {5, 1}, {12, 4}, {6, 2}};
    for (const auto& [hd, group] : cases) {
        const int n_heads = 2 * group, rows = attention_block_rows(group);
        const int n = rows + 3, len = kAttentionTile * 2 + 9 + n;
        Problem p =
            make_problem(hd, n_heads, group, {len}, true, chunk_positions(len, n), 0, hd * 31 + group);
        expect_matches_reference(p, attention, true,
                                 "hd " + std::to_string(hd) + " group " + std::to_string(group));
    }
}

TEST(CpuAttention, SlidingWindowAndRaggedChunk) {
    for (int window : {1, 37, kAttentionTile + 5}) {
        const int len = 3 * kAttentionTile + 21, n = 50;
        Problem p = make_problem(32, 8, 4, {len, len - 40}, false, chunk_positions(600, n), window, window);
        expect_matches_reference(p, attention, true, "window " + std::to_string(window));
    }
}

TEST(CpuAttention, DecodeRowAndValuesOff) {
    Problem p = make_problem(64, 4, 2, {300, 17}, false, {450}, 0, 3);
    expect_matches_reference(p, attention, true, "decode");
    // Without an output only the log-sum-exp is computed.
    std::vector<float> lse(p.n_heads);
    ThreadPool pool(2);
    attention(p.args(nullptr, lse.data()), pool);
    for (int h = 0; h < p.n_heads; ++h)
        EXPECT_NEAR(lse[h], p.ref_lse(0, h), 1e-4 * std::abs(p.ref_lse(0, h)) + 1e-4);
}

TEST(CpuAttention, DecodeOfEveryDirectGroupAndHeadSize) {
    // One decode row on every vector ISA this CPU runs: with AVX-512 and a head size that is a
    // multiple of 16, up to kAttentionDecodeVectors query vectors take the decode tiles
    // (attention_decode.h: 16 keys folded in registers); otherwise one vector takes the direct tile
    // path (a dot and an axpy per key) and more the GEMM path. Groups up to 8, head sizes of real
    // models (64, 80, 96, 128), others (16, 48, 112, 12, 5), a length that leaves a partial tile and
    // a partial group of 16 keys.
    for (const std::string& isa : attention_vector_isas()) {
        ASSERT_TRUE(use_attention_vector_isa(isa));
        for (int group : {1, 2, 3, 4, 8})
            for (int hd : {64, 80, 96, 128, 16, 48, 112, 12, 5}) {
                const int len = 2 * kAttentionTile + 7;
                Problem p =
                    make_problem(hd, 2 * group, group, {len, len - 2}, false, {len + 3}, 0, hd * 7 + group);
                expect_matches_reference(
                    p, attention, true,
                    isa + " decode hd " + std::to_string(hd) + " group " + std::to_string(group));
            }
    }
    ASSERT_TRUE(use_attention_vector_isa("auto"));
}

TEST(CpuAttention, DecodeRowsOfOneBlockReadOnlyTheKeysTheySee) {
    // Two rows of one block whose query vectors share the decode tiles' batches of 4 (GQA groups of
    // 2 and 3), a window whose edge falls between the rows' first visible keys, and NaN in entries
    // a row does not see: a masked key must add nothing to that row, not 0·NaN. First NaN past both
    // rows (a cache head written ahead of these queries), then at the second row's own position,
    // which only it sees: the first row must still match. Head sizes of one, a partial and two
    // 64-value chunks; f32 and f16 caches.
    for (int group : {2, 3})
        for (int hd : {64, 80, 128})
            for (bool f16 : {false, true})
                for (bool second_rows_own : {false, true}) {
                    const int len = 2 * kAttentionTile + 9;
                    Problem p = make_problem(hd, 2 * group, group, {len, len}, true, {len - 6, len - 5}, 300,
                                             hd + f16 + group);
                    const int first_nan = second_rows_own ? len - 5 : len - 4,
                              end_nan = second_rows_own ? len - 4 : len;
                    for (Head& H : p.heads)
                        for (int j = first_nan; j < end_nan; ++j)
                            for (int d = 0; d < hd; ++d)
                                H.k[int64_t(j) * hd + d] = H.v[int64_t(j) * hd + d] = NAN;
                    if (f16) p = as_f16_cache(std::move(p));
                    expect_matches_reference(p, attention, !second_rows_own,
                                             "group " + std::to_string(group) + " hd " + std::to_string(hd) +
                                                 " f16 " + std::to_string(f16) +
                                                 (second_rows_own ? " NaN at row 2" : " NaN past both"),
                                             second_rows_own ? 1 : -1);
                }
}

TEST(CpuAttention, F16CacheOfPrefillAndDecode) {
    // An f16 cache (BackendOptions::kv_f16) through both tile paths: a prefill chunk (GEMM tiles)
    // and decode rows of every direct group, ragged heads with a partial last tile, and a window.
    for (int group : {1, 2, 4, 8})
        for (int n : {1, attention_block_rows(group) + 3}) {
            const int len = 2 * kAttentionTile + 11;
            const Problem p = as_f16_cache(make_problem(64, 2 * group, group, {len, len - 30}, false,
                                                        chunk_positions(len + 20, n), group == 2 ? 100 : 0,
                                                        group * 13 + n));
            expect_matches_reference(p, attention, true,
                                     "f16 group " + std::to_string(group) + " n " + std::to_string(n));
        }
}

TEST(CpuAttention, LongRowsFewQueries) {
    const int len = 20000;
    Problem p = make_problem(64, 4, 2, {len, len - 3}, true, {19990, 10, len - 1}, 0, 11);
    expect_matches_reference(p, attention, true, "20K keys");
    // One decode row: few enough query vectors for the direct (non-GEMM) tile path.
    Problem d = make_problem(64, 4, 2, {len, len - 3}, true, {len - 1}, 0, 12);
    expect_matches_reference(d, attention, true, "20K keys, decode");
}

// Reference window scores: Σ over window rows of each row's softmax probability of entry j.
std::vector<double> reference_window_scores(const Problem& p, int n_prefix) {
    std::vector<double> ref(int64_t(p.n_heads) * n_prefix, 0.0);
    for (int h = 0; h < p.n_heads; ++h)
        for (int r = 0; r < p.n(); ++r) {
            const double l = p.ref_lse(r, h);
            const Head& H = p.heads[h / p.group];
            for (int j = 0; j < std::min<int>(n_prefix, int(H.pos.size())); ++j)
                if (p.sees(p.qpos[r], H.pos[j])) ref[h * n_prefix + j] += std::exp(p.dot(r, h, j) - l);
        }
    return ref;
}

TEST(CpuAttention, WindowScoresMatchDirectSoftmax) {
    struct Case {
        int hd, group, len, w, n_prefix, window;
    };
    const Case cases[] = {
        {16, 1, 70, 8, 62, 0},     {64, 2, 3 * kAttentionTile + 40, 32, 3 * kAttentionTile + 8, 0},
        {80, 4, 300, 5, 300, 0},   {128, 8, 2 * kAttentionTile, 16, 2 * kAttentionTile - 16, 0},
        {12, 2, 500, 32, 468, 50}, {32, 1, 400, 2, 398, 0}};
    for (const bool f16 : {false, true})  // an f32 cache, and an f16 one (BackendOptions::kv_f16)
        for (const Case& k : cases) {
            Problem p = make_problem(k.hd, 2 * k.group, k.group, {k.len}, true, chunk_positions(k.len, k.w),
                                     k.window, k.len);
            if (f16) p = as_f16_cache(std::move(p));
            WindowScoreArgs a;
            a.q = p.q.data();
            a.q_positions = p.qpos.data();
            a.n_window = p.n();
            a.n_heads = p.n_heads;
            a.head_dim = p.hd;
            a.group = p.group;
            a.heads = p.views.data();
            a.scale = p.scale();
            a.sliding_window = p.window;
            a.n_prefix = k.n_prefix;
            std::vector<float> out(int64_t(p.n_heads) * k.n_prefix, -1.0f);
            a.out = out.data();
            ThreadPool pool(2);
            window_scores(a, pool);
            const std::vector<double> ref = reference_window_scores(p, k.n_prefix);
            for (std::size_t i = 0; i < ref.size(); ++i)
                ASSERT_NEAR(out[i], ref[i], 1e-5 + 1e-4 * ref[i])
                    << "hd " << k.hd << " group " << k.group << " f16 " << f16 << " at " << i;
        }
}

TEST(CpuAttention, EveryVectorIsaThisCpuRuns) {
    // Tile tails of every length (exp and max over 1..tile columns) on each instruction set.
    const std::vector<std::string> isas = attention_vector_isas();
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(isas.back(), "portable");
    EXPECT_FALSE(use_attention_vector_isa("no-such-isa"));
    for (const std::string& isa : isas) {
        ASSERT_TRUE(use_attention_vector_isa(isa));
        EXPECT_EQ(attention_vector_isa(), isa);
        const int len = kAttentionTile + 37, n = 40;
        Problem p = make_problem(24, 4, 2, {len, len - 11}, false, chunk_positions(len + 30, n), 45, 5);
        expect_matches_reference(p, attention, true, isa);
        float x[19] = {}, m = -1e30f;
        for (int j = 0; j < 19; ++j) m = std::max(m, x[j] = 0.37f * j - 3.0f);
        EXPECT_EQ(row_max(x, 19), m) << isa;
        double want = 0;
        for (int j = 0; j < 19; ++j) want += std::exp(double(x[j]) - m);
        EXPECT_NEAR(exp_shift_sum(x, 19, m), want, 1e-5 * want) << isa;
        EXPECT_NEAR(x[3], std::exp(0.37 * 3 - 3.0 - m), 1e-6) << isa;
    }
    ASSERT_TRUE(use_attention_vector_isa("auto"));
}

}  // namespace
}  // namespace snapdoc::cpu
