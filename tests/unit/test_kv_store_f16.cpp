// The f16 full K/V store: the row codecs (F16C where the CPU has it, the portable one always) give
// the bits of the exact scalar codec in engine/model/dtype.h, and the store hands back exactly the
// f16-rounded rows it was given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/kv/f16_rows.h"
#include "engine/kv/full_kv_store.h"
#include "engine/model/dtype.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Every half to f32: both codecs agree with the scalar reference bit for bit (NaN: stays NaN).
TEST(F16Rows, EveryHalfWidensExactly) {
    std::vector<uint16_t> all(65536);
    for (int i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
    std::vector<float> fast(all.size()), portable(all.size());
    f16_to_f32_row(all.data(), fast.data(), static_cast<int64_t>(all.size()));
    f16_portable::to_f32(all.data(), portable.data(), static_cast<int64_t>(all.size()));
    for (int i = 0; i < 65536; ++i) {
        const float want = f16_to_f32(static_cast<uint16_t>(i));
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(fast[i]) && std::isnan(portable[i])) << std::hex << i;
            continue;
        }
        ASSERT_EQ(bits(fast[i]), bits(want)) << std::hex << i << " (" << f16_row_kernels_name() << ")";
        ASSERT_EQ(bits(portable[i]), bits(want)) << std::hex << i;
    }
}

// f32 -> f16 rounds to nearest even: the same bits as the scalar codec for random bit patterns,
// every exponent band, the halfway points between neighbouring halves, and the edges (overflow to
// inf at 65520, subnormals, underflow to zero, signed zeros, infinities).
TEST(F16Rows, NarrowingRoundsToNearestEvenLikeTheScalarCodec) {
    std::vector<float> in;
    std::mt19937 rng(7);
    for (int i = 0; i < 200000; ++i) in.push_back(from_bits(rng()));
    for (int h = 0; h < 0x7c00; h += 7) {  // halfway between half h and h + 1, and just either side
        const float a = f16_to_f32(static_cast<uint16_t>(h)), b = f16_to_f32(static_cast<uint16_t>(h + 1));
        const float mid = from_bits((bits(a) + bits(b)) / 2);
        for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
            in.push_back(x);
            in.push_back(-x);
        }
    }
    for (float x : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e9f, 0x1p-14f, 0x1p-24f, 0x1p-25f,
                    0x1.8p-25f, 0x1p-26f, 1e-30f, std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()})
        in.push_back(x);
    std::vector<uint16_t> fast(in.size()), portable(in.size());
    f32_to_f16_row(in.data(), fast.data(), static_cast<int64_t>(in.size()));
    f16_portable::to_f16(in.data(), portable.data(), static_cast<int64_t>(in.size()));
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (std::isnan(in[i])) {
            EXPECT_TRUE(std::isnan(f16_to_f32(fast[i])) && std::isnan(f16_to_f32(portable[i])));
            continue;
        }
        const uint16_t want = f32_to_f16(in[i]);
        ASSERT_EQ(fast[i], want) << in[i] << " (" << f16_row_kernels_name() << ")";
        ASSERT_EQ(portable[i], want) << in[i];
    }
}

TEST(F16Rows, RoundingErrorWithinHalfAnUlp) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-60000.0f, 60000.0f);
    std::vector<float> x(4099);  // not a multiple of 8 or 16: the tails run too
    for (auto& v : x) v = u(rng) * std::pow(2.0f, -static_cast<float>(rng() % 24));
    std::vector<uint16_t> h(x.size());
    std::vector<float> back(x.size());
    f32_to_f16_row(x.data(), h.data(), static_cast<int64_t>(x.size()));
    f16_to_f32_row(h.data(), back.data(), static_cast<int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::fabs(x[i]) >= 0x1p-14f)
            EXPECT_LE(std::fabs(back[i] - x[i]), kF16RelativeRounding * std::fabs(x[i]));
}

// The store: half the bytes of f32, and rows come back exactly as f16-rounded, in RAM and spilled.
TEST(FullKvStoreF16, StoresRoundedRowsAndHalvesTheBytes) {
    testing::TempDir dir;
    const int layers = 2, heads = 3, hd = 20, tokens = 37;
    for (int64_t cap : {int64_t{1} << 30, int64_t{16}}) {
        FullKvStore s(layers, heads, hd, tokens, cap, dir.path());
        EXPECT_EQ(s.bytes(), int64_t{2} * layers * heads * hd * tokens * 2);
        EXPECT_EQ(s.file_backed(), cap == 16);
        std::mt19937 rng(11);
        std::normal_distribution<float> n(0.0f, 3.0f);
        std::vector<std::vector<float>> k(layers * heads), v(layers * heads);
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                auto& kk = k[l * heads + h];
                auto& vv = v[l * heads + h];
                kk.resize(tokens * hd);
                vv.resize(tokens * hd);
                for (auto& x : kk) x = n(rng);
                for (auto& x : vv) x = n(rng);
                s.store_rows(l, h, 0, 30, kk.data(), vv.data());  // in two pieces
                s.store_rows(l, h, 30, tokens - 30, kk.data() + 30 * hd, vv.data() + 30 * hd);
            }
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                std::vector<float> kb(tokens * hd), vb(tokens * hd);
                s.load_rows(l, h, 0, tokens, kb.data(), vb.data());
                for (int i = 0; i < tokens * hd; ++i) {
                    ASSERT_EQ(kb[i], f16_to_f32(f32_to_f16(k[l * heads + h][i])));
                    ASSERT_EQ(vb[i], f16_to_f32(f32_to_f16(v[l * heads + h][i])));
                }
                const std::vector<int32_t> pos = {0, 5, 6, 36};
                std::vector<float> kg(pos.size() * hd), vg(pos.size() * hd);
                s.gather_rows(l, h, pos.data(), static_cast<int>(pos.size()), kg.data(), vg.data());
                for (std::size_t i = 0; i < pos.size(); ++i)
                    for (int d = 0; d < hd; ++d) {
                        ASSERT_EQ(kg[i * hd + d], kb[pos[i] * hd + d]);
                        ASSERT_EQ(vg[i * hd + d], vb[pos[i] * hd + d]);
                    }
            }
    }
}

}  // namespace
}  // namespace snapdoc
