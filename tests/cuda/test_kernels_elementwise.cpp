// The CUDA element-wise kernels against the CPU backend's own functions, over awkward sizes (dims
// that are not multiples of the block size, odd row counts) and every storage type.
#include <gtest/gtest.h>

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/elementwise.h"
#include "kernels/convert.h"
#include "kernels/elementwise.h"
#include "kernels/embedding.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;
using kernels::Dt;

DType to_dtype(Dt t) { return t == Dt::F32 ? DType::F32 : t == Dt::F16 ? DType::F16 : t == Dt::BF16 ? DType::BF16 : DType::Q8_0; }

// Encodes host floats as `t` (what a model file would hold).
std::vector<uint8_t> encode(const std::vector<float>& v, Dt t) {
    std::vector<uint8_t> out(dtype_row_bytes(to_dtype(t), static_cast<int64_t>(v.size())));
    quantize_row(to_dtype(t), v.data(), out.data(), static_cast<int64_t>(v.size()));
    return out;
}

// Downloads `count` values of type t as f32.
std::vector<float> download_as_f32(const cuda::DeviceBuffer& b, Dt t, std::size_t count) {
    const auto raw = from_device<uint8_t>(b.get(), count * kernels::dt_size(t));
    std::vector<float> out(count);
    dequantize_row(to_dtype(t), raw.data(), out.data(), static_cast<int64_t>(count));
    return out;
}

// Allowed NMSE when the result is stored as t (its rounding dominates the kernel's own error).
double tolerance(Dt t) { return t == Dt::F32 ? 1e-10 : t == Dt::F16 ? 1e-6 : 3e-5; }

class TypedKernel : public ::testing::TestWithParam<Dt> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(TypedKernel, EmbeddingGather) {
    const Dt t = GetParam();
    const int vocab = 37, dim = 200;
    auto table = random_floats(static_cast<std::size_t>(vocab) * dim, 1);
    const auto enc = encode(table, t);
    std::vector<int32_t> tokens = {0, 36, 5, 5, 17};
    auto d_table = to_device(enc), d_tok = to_device(tokens);
    cuda::DeviceBuffer d_out(tokens.size() * dim * 4, "test");
    cuda::check(kernels::embed_rows(d_table.get(), t, dim, d_tok.as<int32_t>(), 5, d_out.as<float>(), nullptr), "embed");
    const auto got = from_device<float>(d_out.get(), tokens.size() * dim);
    std::vector<float> want(tokens.size() * dim);
    for (std::size_t r = 0; r < tokens.size(); ++r)
        dequantize_row(to_dtype(t), enc.data() + dtype_row_bytes(to_dtype(t), dim) * tokens[r], want.data() + r * dim, dim);
    EXPECT_EQ(got, want);  // a conversion to f32 is exact
}

TEST_P(TypedKernel, RmsNorm) {
    const Dt t = GetParam();
    for (int dim : {64, 200, 4096}) {
        const int n = 7;
        const auto x = random_floats(static_cast<std::size_t>(n) * dim, 2, 3.0f);
        auto w = random_floats(dim, 3, 0.1f);
        for (auto& v : w) v += 1.0f;
        auto dx = to_device(x), dw = to_device(w);
        cuda::DeviceBuffer d_out(static_cast<std::size_t>(n) * dim * 4, "test");
        cuda::check(kernels::rms_norm(dx.as<float>(), dw.as<float>(), d_out.get(), t, n, dim, 1e-5f, nullptr), "rms_norm");
        const auto got = download_as_f32(d_out, t, static_cast<std::size_t>(n) * dim);
        std::vector<float> want(x.size());
        for (int r = 0; r < n; ++r) cpu::rms_norm_row(x.data() + r * dim, w.data(), want.data() + r * dim, dim, 1e-5f);
        EXPECT_LT(nmse(got, want), tolerance(t)) << "dim " << dim;
    }
}

TEST_P(TypedKernel, SwiGlu) {
    const Dt t = GetParam();
    const int n = 5, ffn = 333;
    const auto gu = random_floats(static_cast<std::size_t>(n) * 2 * ffn, 4, 2.0f);
    auto d_gu = to_device(gu);
    cuda::DeviceBuffer d_out(static_cast<std::size_t>(n) * ffn * 4, "test");
    cuda::check(kernels::swiglu(d_gu.as<float>(), d_out.get(), t, n, ffn, nullptr), "swiglu");
    std::vector<float> want, up;
    for (int r = 0; r < n; ++r) {
        want.insert(want.end(), gu.begin() + r * 2 * ffn, gu.begin() + r * 2 * ffn + ffn);
        up.insert(up.end(), gu.begin() + r * 2 * ffn + ffn, gu.begin() + (r + 1) * 2 * ffn);
    }
    cpu::swiglu(want.data(), up.data(), static_cast<int64_t>(want.size()));
    EXPECT_LT(nmse(download_as_f32(d_out, t, want.size()), want), tolerance(t));
}

TEST_P(TypedKernel, ConvertFromEveryFileType) {
    const Dt dst = GetParam();
    const int64_t n = 32 * 1000 + 64;  // whole Q8_0 blocks, not a multiple of the block size of threads
    const auto x = random_floats(static_cast<std::size_t>(n), 5);
    for (Dt src : {Dt::F32, Dt::F16, Dt::BF16, Dt::Q8_0}) {
        const auto enc = encode(x, src);
        std::vector<float> want(static_cast<std::size_t>(n));
        dequantize_row(to_dtype(src), enc.data(), want.data(), n);
        auto d_src = to_device(enc);
        cuda::DeviceBuffer d_dst(static_cast<std::size_t>(n) * 4, "test");
        cuda::check(kernels::convert(d_src.get(), src, d_dst.get(), dst, n, nullptr), "convert");
        const auto got = download_as_f32(d_dst, dst, static_cast<std::size_t>(n));
        if (dst == Dt::F32) {
            EXPECT_EQ(got, want) << "from type " << int(src);
        } else {
            EXPECT_LT(nmse(got, want), tolerance(dst)) << "from type " << int(src);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Types, TypedKernel, ::testing::Values(Dt::F32, Dt::F16, Dt::BF16),
                         [](const auto& info) { return std::string(dtype_name(to_dtype(info.param))); });

class RopeKernel : public ::testing::TestWithParam<std::tuple<RopeStyle, int, float>> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

// Query and key heads of fused QKV rows, rotated in one launch, at positions up to 100K (where f32
// angles would drift); V (the rest of the row) must be untouched. Theta 1e4 (Llama 2) and 1e6
// (Llama 3 / Mistral v0.2+ / Qwen long-context bases).
TEST_P(RopeKernel, MatchesCpuRope) {
    const auto [style, head_dim, theta] = GetParam();
    const int n_heads = 4, n_kv = 2, n = 9;
    const int stride = (n_heads + 2 * n_kv) * head_dim;
    const std::vector<int32_t> pos = {0, 1, 2, 7, 100, 4095, 4096, 65537, 100003};
    const auto x = random_floats(static_cast<std::size_t>(n) * stride, 6);
    auto dx = to_device(x), dp = to_device(pos);
    const auto conv = style == RopeStyle::AdjacentPairs ? kernels::RopeConvention::AdjacentPairs
                                                        : kernels::RopeConvention::RotateHalf;
    cuda::check(kernels::rope(dx.as<float>(), stride, n, n_heads + n_kv, head_dim, dp.as<int32_t>(), theta, 1.f, conv, nullptr),
                "rope");
    auto want = x;
    cpu::Rope rope(head_dim, style, rope_frequencies(head_dim, theta, RopeScaling{}, 4096));
    rope.prepare(pos.data(), n);
    for (int r = 0; r < n; ++r) rope.apply(want.data() + static_cast<int64_t>(r) * stride, n_heads + n_kv, r);
    const auto got = from_device<float>(dx.get(), x.size());
    EXPECT_LT(nmse(got, want), 1e-10);
    EXPECT_LT(max_abs_diff(got, want), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Conventions, RopeKernel,
                         ::testing::Combine(::testing::Values(RopeStyle::AdjacentPairs, RopeStyle::RotateHalf),
                                            ::testing::Values(8, 64, 128), ::testing::Values(1e4f, 1e6f)),
                         [](const auto& info) {
                             const bool adjacent = std::get<0>(info.param) == RopeStyle::AdjacentPairs;
                             return std::string(adjacent ? "adjacent" : "rotate_half") + "_hd" +
                                    std::to_string(std::get<1>(info.param)) +
                                    (std::get<2>(info.param) > 1e5f ? "_theta1e6" : "_theta1e4");
                         });

TEST(ElementwiseKernel, AddInPlace) {
    SNAPDOC_REQUIRE_CUDA();
    const int64_t n = 1000003;
    const auto a = random_floats(static_cast<std::size_t>(n), 7), b = random_floats(static_cast<std::size_t>(n), 8);
    auto da = to_device(a), db = to_device(b);
    cuda::check(kernels::add_inplace(da.as<float>(), db.as<float>(), n, nullptr), "add");
    auto want = a;
    for (std::size_t i = 0; i < want.size(); ++i) want[i] += b[i];
    EXPECT_EQ(from_device<float>(da.get(), want.size()), want);
}

}  // namespace
}  // namespace snapdoc
