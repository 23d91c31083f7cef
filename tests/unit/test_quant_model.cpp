// Whole models in every block type (all matrices, the token embedding and output head included)
// through the CPU backend, against the reference forward pass run on the weights as stored
// (quantized then dequantized): both prefill and decode (one row at a time: 8-bit activations and
// integer dots) stay within what 8-bit activations cost. (MatMul's sgemm path alone is checked
// exactly in test_quant_dot.) Plus bad block-typed files: rows that are
// not whole blocks, truncated data, an unknown type id — each one clear FormatError.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/model.h"
#include "tests/support/engine_logits.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/reference_llama.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

constexpr DType kBlockTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0,   DType::Q5_1,
                                 DType::Q8_0, DType::Q2_K, DType::Q3_K,   DType::Q4_K,
                                 DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS};

// Each row of a [rows, cols] matrix as the file will hold it: quantized, then decoded.
void round_trip(std::vector<float>& m, int cols, DType t) {
    std::vector<uint8_t> q(dtype_row_bytes(t, cols));
    for (std::size_t r = 0; r < m.size() / static_cast<std::size_t>(cols); ++r) {
        quantize_row(t, m.data() + r * cols, q.data(), cols);
        dequantize_row(t, q.data(), m.data() + r * cols, cols);
    }
}

TinyWeights as_stored(TinyWeights w, DType t) {
    const TinyModelSpec& s = w.spec;
    round_trip(w.tok_embeddings, s.dim, t);
    if (!w.output.empty()) round_trip(w.output, s.dim, t);
    for (auto& l : w.layers) {
        for (auto* m : {&l.wq, &l.wk, &l.wv, &l.w_gate, &l.w_up}) round_trip(*m, s.dim, t);
        round_trip(l.wo, s.n_heads * w.head_dim(), t);
        round_trip(l.w_down, s.ffn_dim, t);
    }
    return w;
}

std::vector<int32_t> some_ids(int n, int vocab) {
    std::vector<int32_t> ids(n);
    uint32_t x = 12345u;
    for (auto& id : ids) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        id = static_cast<int32_t>(x % static_cast<uint32_t>(vocab));
    }
    return ids;
}

class QuantModel : public ::testing::TestWithParam<DType> {};

TEST_P(QuantModel, ExactPrefillIsExactIntegerPrefillAndDecodeAreClose) {
    const DType t = GetParam();
    TempDir dir;
    TinyModelSpec spec;  // every row length a multiple of 256, so K-quant super-blocks fit
    spec.dim = 256;
    spec.n_heads = 4;
    spec.n_kv_heads = 2;
    spec.ffn_dim = 512;
    spec.tied = t == DType::Q6_K || t == DType::Q4_0;  // a tied quantized embedding is also the head
    spec.seed = 17;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, t);
    const Model m = load_model(dir.path() / "m.gguf");
    ASSERT_EQ(m.weights.tok_embeddings.dtype, t);
    ASSERT_EQ(m.weights.layers[0].w_down.dtype, t);
    const auto ids = some_ids(24, spec.vocab_size);
    const TinyWeights stored = as_stored(w, t);
    const auto ref = reference_logits(stored, ids);
    // With --exact-prefill the layers run through sgemm on dequantized slices (exact), but the CPU
    // backend computes logits one row at a time, so the output head takes the 8-bit path: measured
    // 0.2-0.9% of the largest logit. Decode runs every matmul on that path: 0.4-2.2%, and so does
    // the default integer prefill (8-bit activations in every matmul): 1.7-2.2% on the K-quants.
    // (llama.cpp, which does the same, is ~0.5 off on logits of ~13: the modelzoo README.)
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 2, 512, 512, 0, /*exact_prefill=*/true), ref), 1.5e-2)
        << dtype_name(t) << " exact prefill";
    EXPECT_LT(max_rel_diff(engine_logits(m, ids), ref), 4e-2) << dtype_name(t) << " integer prefill";
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 2, 1, 1), ref), 4e-2) << dtype_name(t) << " decode path";
}

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, QuantModel, ::testing::ValuesIn(kBlockTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// A tiny GGUF holding one raw tensor `t` of `shape` (row-major) and `bytes` bytes, plus a trailing
// one when `last` is false (so truncating the first one is not the end of the file).
std::filesystem::path raw_file(const TempDir& dir, uint32_t type, std::vector<int64_t> shape,
                               std::size_t bytes, bool last = true) {
    GgufWriter g;
    g.set_string("general.architecture", "llama");
    g.add_tensor_raw("t", shape, type, std::vector<uint8_t>(bytes, 0x11));
    if (!last) g.add_tensor("after", {32}, DType::F32, std::vector<float>(32, 1.0f));
    const auto path = dir.path() / ("t" + std::to_string(type) + "_" + std::to_string(bytes) + ".gguf");
    g.write(path);
    return path;
}

TEST(QuantBadInput, RowsThatAreNotWholeBlocks) {
    TempDir dir;
    EXPECT_FORMAT_ERROR(GgufFile::open(raw_file(dir, ggml_type::Q4_K, {2, 128}, 144)),
                        "tensor 't' of type Q4_K has row length 128, not a multiple of its block size 256");
    EXPECT_FORMAT_ERROR(GgufFile::open(raw_file(dir, ggml_type::IQ4_NL, {3, 48}, 54)),
                        "tensor 't' of type IQ4_NL has row length 48, not a multiple of its block size 32");
    // The writer refuses to make such a file from floats.
    GgufWriter g;
    EXPECT_THROW(g.add_tensor("x", {2, 100}, DType::Q6_K, std::vector<float>(200, 0.0f)), Error);
}

TEST(QuantBadInput, TruncatedBlockData) {
    TempDir dir;
    // One Q6_K super-block is 210 bytes; the file ends 10 bytes into the second row.
    const auto path = raw_file(dir, ggml_type::Q6_K, {2, 256}, 210 + 200);
    EXPECT_FORMAT_ERROR(GgufFile::open(path), "truncated file: tensor 't' needs 420 bytes");
    // Cut short on disk: the last bytes of a valid file's data.
    const auto ok = raw_file(dir, ggml_type::Q5_0, {4, 64}, 4 * 2 * 22, false);
    std::string bytes = read_file_bytes(ok);
    bytes.resize(bytes.size() - 40);
    EXPECT_FORMAT_ERROR(GgufFile::parse(MappedFile::from_bytes("cut.gguf", bytes)), "truncated file");
}

TEST(QuantBadInput, UnknownTypeIdNamesIt) {
    TempDir dir;
    const GgufFile g = GgufFile::open(raw_file(dir, 77, {2, 32}, 64));
    EXPECT_FORMAT_ERROR(g.tensor_view(g.tensors()[0]),
                        "tensor 't' has unknown type id 77, which snapdoc does not support");
}

}  // namespace
}  // namespace snapdoc
