// The decode step's fused RoPE + K/V append (kernels/decode_fused.h): the row's query heads rotated
// in place and its keys (rotated) and values appended to every segment of a ragged layer at the
// length held in device memory, which advances by one; nothing else in the cache changes. Checked
// against a host rotation with the same frequency table, in both pairing conventions, in kv-head
// and query-head caches (where several segments take the same KV head), at a position near 100K.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/model/dtype.h"
#include "engine/model/rope_scaling.h"
#include "kernels/decode_fused.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

struct FusedCase {
    int head_dim, n_heads, n_kv_heads;
    bool query_head_mode;
    kernels::RopeConvention conv;
};

class RopeKvAppend : public ::testing::TestWithParam<FusedCase> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(RopeKvAppend, RotatesAndAppendsAtTheDeviceLengths) {
    const FusedCase c = GetParam();
    const int hd = c.head_dim, half = hd / 2;
    const int H = c.query_head_mode ? c.n_heads : c.n_kv_heads;
    const int cap = 6;
    const int32_t position = 99991;
    RopeScaling scaling;
    scaling.kind = RopeScalingKind::Linear;
    scaling.factor = 2.0f;
    const RopeFrequencies f = rope_frequencies(hd, 1e6, scaling, 4096);

    const int row = (c.n_heads + 2 * c.n_kv_heads) * hd;
    const auto qkv = random_floats(static_cast<std::size_t>(row), 5, 1.0f);
    std::vector<int32_t> lengths(H);
    for (int h = 0; h < H; ++h) lengths[h] = h % 3;  // ragged, one empty
    const std::size_t entries = static_cast<std::size_t>(H) * cap;
    std::vector<uint16_t> sentinel(entries * hd, f32_to_f16(7.0f));
    std::vector<int32_t> pos_init(entries, -5);

    auto dqkv = to_device(qkv), dlen = to_device(lengths), dk = to_device(sentinel), dv = to_device(sentinel),
         dpos = to_device(pos_init), dposition = to_device(std::vector<int32_t>{position}), dfreq = to_device(f.inv_freq);
    kernels::RopeAppendArgs a;
    a.qkv = dqkv.as<float>();
    a.n_heads = c.n_heads;
    a.n_kv_heads = c.n_kv_heads;
    a.cache.k = dk.as<__half>();
    a.cache.v = dv.as<__half>();
    a.cache.pos = dpos.as<int32_t>();
    a.cache.n_heads = H;
    a.cache.head_dim = hd;
    for (int h = 0; h < H; ++h) a.cache.seg.offset[h] = static_cast<int64_t>(h) * cap;
    a.length = dlen.as<int32_t>();
    a.position = dposition.as<int32_t>();
    a.inv_freq = dfreq.as<double>();
    a.attention_factor = static_cast<float>(f.attention_factor);
    a.convention = c.conv;
    cuda::check(kernels::rope_kv_append(a, nullptr), "rope_kv_append");

    // Host rotation with the table (angles in double, cos/sin rounded to f32 after the factor).
    auto rotate = [&](const float* x, std::vector<float>& out) {
        out.assign(x, x + hd);
        for (int i = 0; i < half; ++i) {
            const double angle = static_cast<double>(position) * f.inv_freq[i];
            const float s = static_cast<float>(std::sin(angle) * f.attention_factor);
            const float co = static_cast<float>(std::cos(angle) * f.attention_factor);
            const bool adj = c.conv == kernels::RopeConvention::AdjacentPairs;
            const int ia = adj ? 2 * i : i, ib = adj ? 2 * i + 1 : i + half;
            out[ia] = x[ia] * co - x[ib] * s;
            out[ib] = x[ia] * s + x[ib] * co;
        }
    };
    const auto got_qkv = from_device<float>(dqkv.get(), static_cast<std::size_t>(row));
    std::vector<float> want;
    for (int qh = 0; qh < c.n_heads; ++qh) {
        rotate(qkv.data() + qh * hd, want);
        for (int d = 0; d < hd; ++d) ASSERT_NEAR(got_qkv[qh * hd + d], want[d], 1e-5) << "q head " << qh << " dim " << d;
    }
    // Keys and values in the qkv row are left as they were (the cache holds the rotated keys).
    for (int i = c.n_heads * hd; i < row; ++i) ASSERT_EQ(got_qkv[i], qkv[i]);

    const auto gk = from_device<uint16_t>(dk.get(), entries * hd), gv = from_device<uint16_t>(dv.get(), entries * hd);
    const auto gpos = from_device<int32_t>(dpos.get(), entries), glen = from_device<int32_t>(dlen.get(), H);
    const int group = H / c.n_kv_heads;
    for (int h = 0; h < H; ++h) {
        EXPECT_EQ(glen[h], lengths[h] + 1);
        const int kvh = h / group;
        rotate(qkv.data() + (c.n_heads + kvh) * hd, want);
        for (int e = 0; e < cap; ++e) {
            const std::size_t entry = static_cast<std::size_t>(h) * cap + e;
            if (e != lengths[h]) {  // untouched
                EXPECT_EQ(gpos[entry], -5);
                for (int d = 0; d < hd; ++d) ASSERT_EQ(gk[entry * hd + d], sentinel[0]);
                continue;
            }
            EXPECT_EQ(gpos[entry], position);
            for (int d = 0; d < hd; ++d) {
                const float kf = f16_to_f32(gk[entry * hd + d]);
                ASSERT_NEAR(kf, want[d], 1e-3 * std::fabs(want[d]) + 1e-6) << "segment " << h << " dim " << d;
                ASSERT_EQ(gv[entry * hd + d], f32_to_f16(qkv[(c.n_heads + c.n_kv_heads + kvh) * hd + d]));
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, RopeKvAppend,
                         ::testing::Values(FusedCase{8, 8, 2, false, kernels::RopeConvention::AdjacentPairs},
                                           FusedCase{64, 8, 2, true, kernels::RopeConvention::RotateHalf},
                                           FusedCase{128, 4, 4, false, kernels::RopeConvention::RotateHalf},
                                           FusedCase{128, 8, 1, true, kernels::RopeConvention::AdjacentPairs}));

TEST(DecodeFused, AdvancePosition) {
    SNAPDOC_REQUIRE_CUDA();
    auto p = to_device(std::vector<int32_t>{41});
    cuda::check(kernels::advance_position(p.as<int32_t>(), nullptr), "advance");
    EXPECT_EQ(from_device<int32_t>(p.get(), 1)[0], 42);
    EXPECT_EQ(kernels::advance_position(nullptr, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace snapdoc
