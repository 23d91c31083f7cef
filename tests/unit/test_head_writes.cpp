// Which heads write into the residual stream (engine/model/head_writes.h): a head whose columns of
// the output projection are all zero bytes writes nothing; anything else, including a head whose
// quantization blocks it shares with a neighbour, counts as writing.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/head_writes.h"

namespace snapdoc {
namespace {

struct TinyWo {
    ModelConfig config;
    ModelWeights weights;
    std::vector<std::vector<uint8_t>> bytes;  // per layer

    TinyWo(DType dtype, int n_layers, int n_heads, int head_dim, int dim) {
        config.n_layers = n_layers;
        config.n_heads = n_heads;
        config.head_dim = head_dim;
        config.dim = dim;
        const int64_t cols = int64_t{n_heads} * head_dim;
        const std::size_t row = dtype_row_bytes(dtype, cols);
        for (int l = 0; l < n_layers; ++l) {
            bytes.emplace_back(row * dim, 0x11);  // every byte non-zero: every head writes
        }
        for (int l = 0; l < n_layers; ++l) {
            LayerWeights lw;
            lw.wo.name = "blk." + std::to_string(l) + ".attn_output.weight";
            lw.wo.dtype = dtype;
            lw.wo.shape = {dim, cols};
            lw.wo.data = bytes[l].data();
            lw.wo.nbytes = bytes[l].size();
            weights.layers.push_back(lw);
        }
    }
    // Zeroes head h's columns in every row of layer l.
    void silence(int l, int h) {
        const TensorView& wo = weights.layers[l].wo;
        const std::size_t at = dtype_row_bytes(wo.dtype, int64_t{h} * config.head_dim);
        const std::size_t n = dtype_row_bytes(wo.dtype, config.head_dim);
        for (int64_t r = 0; r < wo.rows(); ++r) std::memset(bytes[l].data() + r * dtype_row_bytes(wo.dtype, wo.cols()) + at, 0, n);
    }
};

TEST(HeadWrites, EveryHeadWritingGivesNoFlags) {
    TinyWo m(DType::F32, 2, 4, 8, 16);
    EXPECT_TRUE(heads_that_write(m.config, m.weights).empty());
}

TEST(HeadWrites, AZeroSliceIsASilentHeadInEveryFormat) {
    for (DType t : {DType::F32, DType::F16, DType::Q8_0}) {
        SCOPED_TRACE(dtype_name(t));
        TinyWo m(t, 2, 4, 32, 8);
        m.silence(1, 2);
        const auto w = heads_that_write(m.config, m.weights);
        ASSERT_EQ(w.size(), 8u);
        for (int i = 0; i < 8; ++i) EXPECT_EQ(w[i], i == 1 * 4 + 2 ? 0 : 1) << "layer " << i / 4 << " head " << i % 4;
    }
}

TEST(HeadWrites, OneNonZeroByteInAnyRowMakesItWrite) {
    TinyWo m(DType::F32, 1, 2, 8, 4);
    m.silence(0, 1);
    m.bytes[0][3 * dtype_row_bytes(DType::F32, 16) + 8 * 4 + 5] = 1;  // last row, inside head 1
    EXPECT_TRUE(heads_that_write(m.config, m.weights).empty());
}

// Q4_K blocks hold 256 columns: with 64-wide heads four heads share a block, so the bytes cannot
// say which one is zero; every head counts as writing.
TEST(HeadWrites, HeadsSharingQuantBlocksCountAsWriting) {
    TinyWo m(DType::Q4_K, 1, 4, 64, 2);
    std::memset(m.bytes[0].data(), 0, m.bytes[0].size());
    EXPECT_TRUE(heads_that_write(m.config, m.weights).empty());
}

}  // namespace
}  // namespace snapdoc
