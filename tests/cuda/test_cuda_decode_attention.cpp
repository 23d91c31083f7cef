// The single-row (decode) attention kernel — split-KV over every warp of a block, partials merged
// in shared memory and across blocks — against a double-precision reference on ragged caches:
// every head keeps its own number of keys (1, 31, 4097, ...), some entries lie after the query's
// position (invisible), one head sees no key at all; GQA groups of 1 to 16 query heads (more than
// one block per cache head), head dims 8 to 128, one split or many; segment lengths read from the
// device (the captured decode step's way) or from the table; output in f32 or straight in f16.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "engine/model/dtype.h"
#include "kernels/attention.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

struct DecodeShape {
    int head_dim, group, cache_heads, keys, sm_count;
    bool device_lengths;
};

std::ostream& operator<<(std::ostream& os, const DecodeShape& s) {
    return os << "hd" << s.head_dim << "_g" << s.group << "_ch" << s.cache_heads << "_keys" << s.keys << "_sm" << s.sm_count
              << (s.device_lengths ? "_devlen" : "_table");
}

class DecodeAttention : public ::testing::TestWithParam<DecodeShape> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(DecodeAttention, MatchesDoubleReferenceOnRaggedCache) {
    const DecodeShape s = GetParam();
    const int hd = s.head_dim, H = s.cache_heads, n_heads = H * s.group;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const int32_t qpos = 3 * s.keys + 10;
    std::mt19937 rng(static_cast<uint32_t>(s.keys * 7 + hd));

    // Head lengths: `keys`, then shorter ones (at least 1); head 1 (when there is one) also holds
    // entries after the query position, and the last head of 3+ only such entries (sees nothing).
    std::vector<std::vector<int32_t>> pos(H);
    for (int h = 0; h < H; ++h) {
        const int len = h == 0 ? s.keys : std::max(1, s.keys - (s.keys * h) / H - h);
        std::vector<int32_t> all(static_cast<std::size_t>(qpos) + 1);
        for (int i = 0; i <= qpos; ++i) all[i] = i;
        std::shuffle(all.begin(), all.end(), rng);
        pos[h].assign(all.begin(), all.begin() + std::min<int>(len, qpos + 1));
        std::sort(pos[h].begin(), pos[h].end());
        if (h == 1) pos[h].push_back(qpos + 5);
        if (H >= 3 && h == H - 1) pos[h] = {qpos + 1, qpos + 2};
    }
    std::vector<int64_t> offset(H);
    int64_t total = 0;
    for (int h = 0; h < H; ++h) {
        offset[h] = total;
        total += static_cast<int64_t>(pos[h].size()) + 3;  // gaps between segments, as capacities leave
    }
    const auto k = round_f16(random_floats(static_cast<std::size_t>(total) * hd, 31, 1.0f));
    const auto v = round_f16(random_floats(static_cast<std::size_t>(total) * hd, 37, 1.0f));
    std::vector<uint16_t> kh(k.size()), vh(v.size());
    for (std::size_t i = 0; i < k.size(); ++i) {
        kh[i] = f32_to_f16(k[i]);
        vh[i] = f32_to_f16(v[i]);
    }
    std::vector<int32_t> flat_pos(static_cast<std::size_t>(total), 0), lengths(H);
    for (int h = 0; h < H; ++h) {
        std::copy(pos[h].begin(), pos[h].end(), flat_pos.begin() + offset[h]);
        lengths[h] = static_cast<int>(pos[h].size());
    }
    auto dk = to_device(kh), dv = to_device(vh), dpos = to_device(flat_pos), dlen = to_device(lengths);
    const auto q = random_floats(static_cast<std::size_t>(n_heads) * hd, 41, 1.5f);
    auto dq = to_device(q), dqpos = to_device(std::vector<int32_t>{qpos});

    kernels::AttentionArgs a;
    a.q = dq.as<float>();
    a.q_stride = static_cast<int64_t>(n_heads) * hd;
    a.q_pos = dqpos.as<int32_t>();
    a.n = 1;
    a.n_heads = n_heads;
    a.scale = scale;
    a.cache.k = dk.as<__half>();
    a.cache.v = dv.as<__half>();
    a.cache.pos = dpos.as<int32_t>();
    a.cache.n_heads = H;
    a.cache.head_dim = hd;
    int max_len = 0;
    for (int h = 0; h < H; ++h) {
        a.cache.seg.offset[h] = offset[h];
        // With device lengths the table's are wrong on purpose: the kernel must not read them.
        a.cache.seg.length[h] = s.device_lengths ? 0 : lengths[h];
        max_len = std::max(max_len, lengths[h]);
    }
    if (s.device_lengths) a.seg_length = dlen.as<int32_t>();
    a.max_len = max_len;
    a.sm_count = s.sm_count;
    const auto plan = kernels::plan_attention(1, n_heads, H, max_len, s.sm_count);
    const int64_t floats = kernels::attention_scratch_floats(1, n_heads, H, hd, max_len, s.sm_count);
    cuda::DeviceBuffer scratch(static_cast<std::size_t>(std::max<int64_t>(floats, 1)) * 4, "scratch");
    a.scratch = scratch.as<float>();
    cuda::DeviceBuffer dout(q.size() * 4, "out"), dlse(static_cast<std::size_t>(n_heads) * 4, "lse");
    a.out = dout.as<float>();
    a.out_stride = a.q_stride;
    a.lse = dlse.as<float>();
    cuda::check(kernels::attention(a, nullptr), "decode attention");
    const auto got = from_device<float>(dout.get(), q.size());
    const auto lse = from_device<float>(dlse.get(), n_heads);

    // Written in the output projection's input type instead (the captured step's fused conversion):
    // the same values, rounded once.
    cuda::DeviceBuffer dcast(q.size() * 2, "f16 out");
    a.out_cast = dcast.get();
    a.out_cast_dt = kernels::Dt::F16;
    a.lse = nullptr;
    cuda::check(kernels::attention(a, nullptr), "decode attention (f16 output)");
    const auto got16 = from_device<uint16_t>(dcast.get(), q.size());
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(got16[i], f32_to_f16(got[i])) << s << " element " << i;

    for (int qh = 0; qh < n_heads; ++qh) {
        const int h = qh / s.group;
        std::vector<double> sc;
        double mx = -INFINITY;
        for (std::size_t j = 0; j < pos[h].size() && pos[h][j] <= qpos; ++j) {
            double dot = 0;
            for (int d = 0; d < hd; ++d) dot += double(q[qh * hd + d]) * k[(offset[h] + j) * hd + d];
            sc.push_back(dot * scale);
            mx = std::max(mx, sc.back());
        }
        if (sc.empty()) {
            for (int d = 0; d < hd; ++d) EXPECT_EQ(got[qh * hd + d], 0.0f) << s << " head " << qh;
            EXPECT_TRUE(std::isinf(lse[qh]) && lse[qh] < 0) << s << " head " << qh;
            continue;
        }
        double z = 0;
        std::vector<double> out(hd, 0.0);
        for (std::size_t j = 0; j < sc.size(); ++j) {
            const double p = std::exp(sc[j] - mx);
            z += p;
            for (int d = 0; d < hd; ++d) out[d] += p * v[(offset[h] + j) * hd + d];
        }
        for (int d = 0; d < hd; ++d)
            ASSERT_NEAR(got[qh * hd + d], out[d] / z, 2e-5) << s << " head " << qh << " dim " << d << " (" << plan.n_split
                                                            << " splits)";
        EXPECT_NEAR(lse[qh], mx + std::log(z), 1e-4) << s << " head " << qh;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeAttention,
                         ::testing::Values(DecodeShape{64, 4, 2, 1, 16, true}, DecodeShape{64, 4, 2, 31, 16, true},
                                           DecodeShape{128, 4, 2, 4097, 16, true},   // many splits
                                           DecodeShape{128, 4, 2, 4097, 1, false},   // few splits, table lengths
                                           DecodeShape{128, 1, 8, 600, 16, true},    // query-head mode shape
                                           DecodeShape{64, 16, 2, 700, 4, true},     // 2 blocks per cache head
                                           DecodeShape{8, 2, 4, 31, 16, false},      // tiny head dim
                                           DecodeShape{96, 8, 3, 1100, 16, true}),  // head dim below the tile
                         [](const auto& info) {
                             std::ostringstream os;
                             os << info.param;
                             return os.str();
                         });

// The split count follows the plan, and a long row on few heads is split across blocks.
TEST(DecodeAttentionPlan, SplitsLongRowsOnFewHeads) {
    EXPECT_EQ(kernels::plan_attention(1, 32, 8, 100, 132).n_split, 1);
    EXPECT_GT(kernels::plan_attention(1, 32, 8, 100000, 132).n_split, 1);
    EXPECT_EQ(kernels::plan_attention(1, 32, 8, 100000, 1).n_split, 1);  // 8 blocks fill 1 SM already
    const auto p = kernels::plan_attention(1, 32, 8, 4097, 16);
    EXPECT_EQ(kernels::attention_scratch_floats(1, 32, 8, 128, 4097, 16), p.n_split > 1 ? p.n_split * 32 * 130 : 0);
}

}  // namespace
}  // namespace snapdoc
