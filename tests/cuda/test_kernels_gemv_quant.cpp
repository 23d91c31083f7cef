// The block-quantized GEMV and row dequantization (kernels/gemv_quant.h) for every GGUF block type
// the CPU path supports, against the CPU's dequantize_row (engine/model/quant) and a double-precision
// dot. Weights are random bytes shaped as blocks (every bit pattern of the quant fields, chosen
// scales: negative, tiny, zero) and rows from the project's own quantizers. Shapes: one block, many
// blocks, row counts that are not multiples of the 4 rows a GEMV block computes, more input rows
// than one GEMV launch serves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "kernels/gemv_quant.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/random_blocks.h"

namespace snapdoc {
namespace {

using namespace cudatest;
using kernels::BlockType;
using kernels::Dt;

DType to_dtype(BlockType t) {
    switch (t) {
        case BlockType::Q4_0: return DType::Q4_0;
        case BlockType::Q4_1: return DType::Q4_1;
        case BlockType::Q5_0: return DType::Q5_0;
        case BlockType::Q5_1: return DType::Q5_1;
        case BlockType::Q8_0: return DType::Q8_0;
        case BlockType::IQ4_NL: return DType::IQ4_NL;
        case BlockType::Q2_K: return DType::Q2_K;
        case BlockType::Q3_K: return DType::Q3_K;
        case BlockType::Q4_K: return DType::Q4_K;
        case BlockType::Q5_K: return DType::Q5_K;
        case BlockType::Q6_K: return DType::Q6_K;
        case BlockType::IQ4_XS: return DType::IQ4_XS;
    }
    return DType::F32;
}

// Byte ranges of the quant fields (everything but the scales) of the affine types, whose values
// are a * q + b with b != 0: zeroing them makes every value of the block decode to its b.
std::pair<int, int> quant_field_range(BlockType t) {
    switch (t) {
        case BlockType::Q4_1: return {4, 20};
        case BlockType::Q5_1: return {4, 24};
        case BlockType::Q2_K: return {16, 80};
        case BlockType::Q4_K: return {16, 144};
        case BlockType::Q5_K: return {16, 176};
        default: return {0, 0};  // symmetric: b = 0
    }
}

struct QuantRows {
    std::vector<uint8_t> bytes;  // rows x row_bytes, as a GGUF file stores them
    std::vector<float> values;   // the CPU's dequantization, rows x cols
    std::vector<float> offsets;  // |b| per value (0 for symmetric types)
    int rows = 0, cols = 0;
    int64_t row_bytes = 0;
};

// Even rows: random block bytes with scales drawn from a set with negative, tiny and zero values;
// odd rows: the project's quantizer applied to normal floats.
QuantRows make_rows(BlockType t, int rows, int blocks, uint32_t seed) {
    const DType dt = to_dtype(t);
    QuantRows q;
    q.rows = rows;
    q.cols = blocks * kernels::block_values(t);
    q.row_bytes = kernels::block_row_bytes(t, q.cols);
    EXPECT_EQ(q.row_bytes, static_cast<int64_t>(dtype_row_bytes(dt, q.cols)));  // the device's sizes are the CPU's
    std::mt19937 gen(seed);
    const std::vector<float> scales = {0.0123f, -0.5f, 1.25f, 3e-3f, 0.0f, -0.07f};
    for (int r = 0; r < rows; ++r) {
        std::vector<uint8_t> row;
        if (r % 2 == 0) {
            row = testing::random_blocks(dt, blocks, gen, scales);
        } else {
            const auto f = random_floats(static_cast<std::size_t>(q.cols), seed * 31 + r, 0.8f);
            row.resize(static_cast<std::size_t>(q.row_bytes));
            quantize_row(dt, f.data(), row.data(), q.cols);
        }
        q.bytes.insert(q.bytes.end(), row.begin(), row.end());
    }
    q.values.resize(static_cast<std::size_t>(rows) * q.cols);
    q.offsets.assign(q.values.size(), 0.0f);
    const auto [z0, z1] = quant_field_range(t);
    const int bb = kernels::block_bytes(t);
    for (int r = 0; r < rows; ++r) {
        const uint8_t* src = q.bytes.data() + r * q.row_bytes;
        dequantize_row(dt, src, q.values.data() + static_cast<std::size_t>(r) * q.cols, q.cols);
        if (z1 > z0) {
            std::vector<uint8_t> zeroed(src, src + q.row_bytes);
            for (int b = 0; b < blocks; ++b) std::memset(zeroed.data() + b * bb + z0, 0, static_cast<std::size_t>(z1 - z0));
            float* off = q.offsets.data() + static_cast<std::size_t>(r) * q.cols;
            dequantize_row(dt, zeroed.data(), off, q.cols);
            for (int k = 0; k < q.cols; ++k) off[k] = std::fabs(off[k]);
        }
    }
    for (float v : q.values) EXPECT_TRUE(std::isfinite(v));
    return q;
}

class GemvQuant : public ::testing::TestWithParam<BlockType> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

std::string type_name(const ::testing::TestParamInfo<BlockType>& info) {
    return std::string(dtype_name(to_dtype(info.param)));
}

// Dequantization to f32 is the CPU's bit for bit; to f16/bf16 it is that value correctly rounded.
// Covers consecutive rows from an offset into a wider destination, and gathered rows (embeddings).
TEST_P(GemvQuant, DequantizeRowsMatchesCpu) {
    const BlockType t = GetParam();
    for (int blocks : {1, 3}) {
        const QuantRows q = make_rows(t, 5, blocks, 7 + blocks);
        auto dw = to_device(q.bytes);
        const int cols = q.cols, stride = cols + 3;
        // Rows 1..4 into a destination with a row stride wider than the row.
        {
            const int rows = 4;
            cuda::DeviceBuffer out(static_cast<std::size_t>(rows) * stride * 4, "test");
            cuda::check(kernels::dequantize_rows(dw.get(), t, cols, 1, nullptr, rows, out.get(), Dt::F32, stride, nullptr),
                        "dequantize_rows");
            const auto got = from_device<float>(out.get(), static_cast<std::size_t>(rows) * stride);
            for (int r = 0; r < rows; ++r)
                for (int k = 0; k < cols; ++k)
                    ASSERT_EQ(got[r * stride + k], q.values[(r + 1) * cols + k]) << "row " << r + 1 << " value " << k;
        }
        // Gathered rows, repeats included, to f16 and bf16.
        const std::vector<int32_t> ids = {4, 0, 4, 2, 3};
        auto d_ids = to_device(ids);
        for (Dt dt : {Dt::F16, Dt::BF16}) {
            const int n = static_cast<int>(ids.size());
            cuda::DeviceBuffer out(static_cast<std::size_t>(n) * cols * 2, "test");
            cuda::check(kernels::dequantize_rows(dw.get(), t, cols, 0, d_ids.as<int32_t>(), n, out.get(), dt, cols, nullptr),
                        "dequantize_rows");
            const auto got = from_device<uint16_t>(out.get(), static_cast<std::size_t>(n) * cols);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < cols; ++k) {
                    const float v = q.values[ids[i] * cols + k];
                    const uint16_t want = dt == Dt::F16 ? f32_to_f16(v) : f32_to_bf16(v);
                    ASSERT_EQ(got[i * cols + k], want) << (dt == Dt::F16 ? "f16" : "bf16") << " row " << ids[i] << " value " << k;
                }
        }
    }
}

// Error bound of the kernel's f32 arithmetic: each term passes through at most `depth` roundings
// (per group kPer + 2 fused multiply-adds, two per group and block a lane handles, five warp-sum
// levels, two for the CPU's rounded w), each at most u = 2^-24 relative to the magnitudes summed,
// |a q| + |b| <= |w| + 2 |b|. So |err| <= depth * u * Σ (|w| + 2|b|) |x| (+ the beta term).
double error_bound(const QuantRows& q, int row, const float* x, int depth) {
    double s = 0;
    for (int k = 0; k < q.cols; ++k)
        s += (std::fabs(static_cast<double>(q.values[row * q.cols + k])) + 2.0 * q.offsets[row * q.cols + k]) *
             std::fabs(static_cast<double>(x[k]));
    return depth * std::ldexp(1.0, -24) * s;
}

int accumulation_depth(BlockType t, int blocks) {
    const bool legacy = kernels::block_values(t) == 32;
    const int lanes = legacy ? 4 : 16, per = legacy ? 8 : 16;  // lanes per block, values per lane
    const int blocks_per_lane = (blocks + 32 / lanes - 1) / (32 / lanes);
    return per + 2 + 2 * 4 * blocks_per_lane + 5 + 2;  // at most 4 groups per part
}

TEST_P(GemvQuant, GemvMatchesDoubleReference) {
    const BlockType t = GetParam();
    const bool legacy = kernels::block_values(t) == 32;
    struct Shape {
        int rows, blocks;
    };
    // One block; rows not a multiple of 4; a long row (many blocks per lane).
    const Shape shapes[] = {{1, 1}, {7, 1}, {13, legacy ? 9 : 3}, {6, legacy ? 40 : 9}};
    uint32_t seed = 100;
    for (const Shape& s : shapes) {
        const QuantRows q = make_rows(t, s.rows, s.blocks, ++seed);
        auto dw = to_device(q.bytes);
        for (int n : {1, 2, kernels::kGemvMaxRows + 1}) {
            for (float beta : {0.0f, 1.0f}) {
                const int x_stride = q.cols + 5, y_stride = s.rows + 2;
                const auto x = random_floats(static_cast<std::size_t>(n) * x_stride, ++seed, 1.0f);
                const auto y0 = random_floats(static_cast<std::size_t>(n) * y_stride, ++seed, 2.0f);
                auto dx = to_device(x), dy = to_device(y0);
                cuda::check(kernels::gemv_quant(dw.get(), t, s.rows, q.cols, dx.as<float>(), x_stride, n, dy.as<float>(),
                                                y_stride, beta, nullptr),
                            "gemv_quant");
                const auto y = from_device<float>(dy.get(), y0.size());
                const int depth = accumulation_depth(t, s.blocks);
                for (int j = 0; j < n; ++j) {
                    for (int r = 0; r < s.rows; ++r) {
                        double want = 0;
                        for (int k = 0; k < q.cols; ++k)
                            want += static_cast<double>(q.values[r * q.cols + k]) * x[j * x_stride + k];
                        const double old = y0[j * y_stride + r];
                        want += beta * old;
                        const double tol = error_bound(q, r, x.data() + j * x_stride, depth) +
                                           2 * std::ldexp(1.0, -24) * (std::fabs(want) + std::fabs(beta * old));
                        EXPECT_NEAR(y[j * y_stride + r], want, tol)
                            << "rows " << s.rows << " blocks " << s.blocks << " n " << n << " beta " << beta << " input " << j
                            << " row " << r;
                    }
                    // Past the rows: untouched.
                    for (int r = s.rows; r < y_stride; ++r) EXPECT_EQ(y[j * y_stride + r], y0[j * y_stride + r]);
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, GemvQuant, ::testing::ValuesIn(kernels::kAllBlockTypes), type_name);

TEST(GemvQuantArgs, RejectsPartialBlocksAndBadTypes) {
    SNAPDOC_REQUIRE_CUDA();
    cuda::DeviceBuffer w(4096, "test"), x(4096, "test"), y(4096, "test");
    EXPECT_EQ(kernels::gemv_quant(w.get(), BlockType::Q4_K, 1, 128, x.as<float>(), 128, 1, y.as<float>(), 1, 0.0f, nullptr),
              cudaErrorInvalidValue);
    EXPECT_EQ(kernels::gemv_quant(w.get(), BlockType::Q8_0, -1, 32, x.as<float>(), 32, 1, y.as<float>(), 1, 0.0f, nullptr),
              cudaErrorInvalidValue);
    EXPECT_EQ(kernels::dequantize_rows(w.get(), BlockType::Q4_0, 48, 0, nullptr, 1, y.get(), Dt::F32, 48, nullptr),
              cudaErrorInvalidValue);
    EXPECT_EQ(kernels::dequantize_rows(w.get(), BlockType::Q4_0, 32, 0, nullptr, 1, y.get(), Dt::Q8_0, 32, nullptr),
              cudaErrorInvalidValue);
    // Nothing to do is not an error.
    EXPECT_EQ(kernels::gemv_quant(w.get(), BlockType::Q6_K, 0, 256, x.as<float>(), 256, 1, y.as<float>(), 1, 0.0f, nullptr),
              cudaSuccess);
    EXPECT_EQ(kernels::dequantize_rows(w.get(), BlockType::IQ4_XS, 256, 0, nullptr, 0, y.get(), Dt::F16, 256, nullptr),
              cudaSuccess);
}

}  // namespace
}  // namespace snapdoc
