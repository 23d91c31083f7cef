// Issue 14, non-finite weights: a NaN/Inf norm or bias is refused at load naming the tensor; one in
// a matrix is named by the opt-in full scan and stops the first forward instead of giving finite,
// silently wrong logits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "engine/common/error.h"
#include "engine/model/finite_weights.h"
#include "engine/model/model.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/attention_vec.h"
#include "engine/session/prefill.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_types.h"
#include "engine/model/safetensors_file.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace testing;

TEST(NonFiniteWeights, NormOrBiasIsRefusedAtLoadNamingTheTensor) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[1].ffn_norm[3] = std::numeric_limits<float>::quiet_NaN();
    write_tiny_gguf(dir / "nan.gguf", w, DType::F16);
    EXPECT_FORMAT_ERROR(load_model(dir / "nan.gguf"),
                        "tensor blk.1.ffn_norm.weight holds NaN or Inf (element 3)");

    TinyModelSpec qwen;
    qwen.arch = "qwen2";
    TinyWeights q = make_tiny_weights(qwen);
    q.layers[0].bk[1] = std::numeric_limits<float>::infinity();
    write_tiny_gguf(dir / "inf.gguf", q, DType::F32);
    EXPECT_FORMAT_ERROR(load_model(dir / "inf.gguf"), "blk.0.attn_k.bias holds NaN or Inf (element 1)");
}

TEST(NonFiniteWeights, MatrixIsNamedByTheFullScanAndStopsTheFirstForward) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[0].w_down[10] = std::numeric_limits<float>::infinity();
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    const Model m = load_model(dir / "m.gguf");  // matrices are not scanned at load (that pages in the model)
    EXPECT_FORMAT_ERROR(check_finite_weights(m, /*include_matrices=*/true),
                        "tensor blk.0.ffn_down.weight holds NaN");

    auto backend = make_backend(m, {}, "cpu");
    auto kv = make_full_kv_cache(*backend, 8);
    const std::vector<int32_t> ids = {1, 5, 9, 12};
    try {
        prefill(*backend, ids, 0, *kv, {});
        ADD_FAILURE() << "expected an error for non-finite logits";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("NaN or Inf logits"), std::string::npos) << e.what();
    }
}

// The softmax kernel itself, on every instruction set this machine has: a NaN score yields a NaN
// sum (it was exp'd to 0, i.e. masked, by the AVX2/AVX-512 kernels); -inf still means masked.
TEST(NonFiniteWeights, SoftmaxKernelsPropagateNanScores) {
    const std::string before = cpu::attention_vector_isa();
    for (const std::string& isa : cpu::attention_vector_isas()) {
        ASSERT_TRUE(cpu::use_attention_vector_isa(isa));
        std::vector<float> x(37, 0.5f);
        x[3] = std::numeric_limits<float>::quiet_NaN();
        EXPECT_TRUE(std::isnan(cpu::exp_shift_sum(x.data(), 37, 1.0f))) << isa;
        std::vector<float> masked(37, 0.5f);
        masked[3] = -std::numeric_limits<float>::infinity();
        const float s = cpu::exp_shift_sum(masked.data(), 37, 1.0f);
        EXPECT_NEAR(s, 36 * std::exp(-0.5f), 1e-4f) << isa;
        EXPECT_EQ(masked[3], 0.0f) << isa;
    }
    cpu::use_attention_vector_isa(before);
}

// NaN in a K projection gives NaN attention scores; the vectorised softmax used to turn them into
// masked ones (finite, silently different logits). Now the NaN reaches the logits and is reported.
TEST(NonFiniteWeights, NanAttentionScoresAreNotTreatedAsMasked) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[0].wk[5] = std::numeric_limits<float>::quiet_NaN();
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    const Model m = load_model(dir / "m.gguf");
    auto backend = make_backend(m, {}, "cpu");
    auto kv = make_full_kv_cache(*backend, 64);
    std::vector<int32_t> ids(40);
    for (int i = 0; i < 40; ++i) ids[i] = 1 + (i * 7) % 300;
    EXPECT_THROW(prefill(*backend, ids, 0, *kv, {}), Error);
}

// Issue 24: a tensor whose data offset points into another tensor's bytes (or at the same bytes:
// an alias) was accepted, so one tensor's bytes were computed with as another's. Refused, naming both.
TEST(OverlappingTensors, GgufDataOffsetsIntoAnotherTensorAreRefused) {
    TempDir dir;
    write_tiny_gguf(dir / "ok.gguf", make_tiny_weights(TinyModelSpec{}), DType::F32);
    const GgufFile good = GgufFile::open(dir / "ok.gguf");
    ASSERT_GE(good.tensors().size(), 3u);
    const auto& victim = good.tensors()[2];
    std::string bytes = read_file_bytes(dir / "ok.gguf");
    // The victim's info: name (u64 length + bytes), u32 n_dims, u64 dims[n_dims], u32 type, u64 offset.
    const std::size_t name_at = bytes.find(victim.name);
    ASSERT_NE(name_at, std::string::npos);
    const std::size_t offset_at = name_at + victim.name.size() + 4 + 8 * victim.dims.size() + 4;
    for (uint64_t new_offset : {good.tensors()[1].offset, good.tensors()[1].offset + 32}) {  // alias, overlap
        std::memcpy(bytes.data() + offset_at, &new_offset, sizeof new_offset);
        {
            std::ofstream out(dir / "bad.gguf", std::ios::binary | std::ios::trunc);
            out << bytes;
        }
        EXPECT_FORMAT_ERROR(GgufFile::open(dir / "bad.gguf"), "overlap; every tensor must have its own bytes");
    }
}

TEST(OverlappingTensors, SafetensorsDataOffsetsThatOverlapAreRefused) {
    TempDir dir;
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
    {
        std::ofstream out(dir / "m.safetensors", std::ios::binary);
        const uint64_t n = header.size();
        out.write(reinterpret_cast<const char*>(&n), sizeof n);
        out << header << std::string(12, '\0');
    }
    EXPECT_FORMAT_ERROR(SafetensorsFile::open(dir / "m.safetensors"),
                        "tensors 'a' (data bytes 0..8) and 'b' (4..12) overlap");
}

// Issue 24: a NaN or Inf scale in one block of a quantized tensor made every logit exactly 0.0 (exit
// status 0); a block-type norm with a NaN scale was accepted. Both are refused at load, naming the
// tensor, for every block type with f16 scales: d at its offset, and the min / dmin where there is one.
struct ScaleCase {
    DType type;
    int offset;  // of the f16 poisoned in block 1
};

class NonFiniteBlockScales : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(NonFiniteBlockScales, AreRefusedAtLoadNamingTheTensor) {
    const ScaleCase c = GetParam();
    TempDir dir;
    TinyModelSpec spec;
    spec.dim = 512;  // two 256-value super-blocks per row (and per norm) for the K-quants
    spec.ffn_dim = 256;
    spec.n_heads = 4;
    write_tiny_gguf(dir / "f32.gguf", make_tiny_weights(spec), DType::F32);
    for (const std::string target : {"blk.1.ffn_down.weight", "blk.0.attn_norm.weight"}) {
        for (uint16_t poison : {uint16_t{0x7e00}, uint16_t{0x7c00}, uint16_t{0xfc00}}) {  // NaN, +Inf, -Inf
            GgufEdit edit;
            edit.tensor = [&](std::string& name, std::vector<int64_t>& shape, uint32_t& type,
                              std::vector<uint8_t>& bytes) {
                if (name != target) return true;
                const int64_t n = static_cast<int64_t>(bytes.size() / 4);
                std::vector<float> f(static_cast<std::size_t>(n));
                std::memcpy(f.data(), bytes.data(), bytes.size());
                bytes.assign(dtype_row_bytes(c.type, n), 0);
                quantize_row(c.type, f.data(), bytes.data(), n);
                type = ggml_from_dtype(c.type);
                const std::size_t at = static_cast<std::size_t>(dtype_block_bytes(c.type) + c.offset);
                std::memcpy(bytes.data() + at, &poison, sizeof poison);
                (void)shape;
                return true;
            };
            const auto file = dir / "bad.gguf";
            rewrite_gguf(dir / "f32.gguf", file, edit);
            EXPECT_FORMAT_ERROR(load_model(file), "tensor " + target + " (" + std::string(dtype_name(c.type)) +
                                                      ") has a NaN or Inf scale in block 1");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryScale, NonFiniteBlockScales,
    ::testing::Values(ScaleCase{DType::Q8_0, 0}, ScaleCase{DType::Q4_0, 0}, ScaleCase{DType::Q4_1, 2},
                      ScaleCase{DType::Q5_0, 0}, ScaleCase{DType::Q5_1, 2}, ScaleCase{DType::IQ4_NL, 0},
                      ScaleCase{DType::Q2_K, 82}, ScaleCase{DType::Q3_K, 108}, ScaleCase{DType::Q4_K, 0},
                      ScaleCase{DType::Q4_K, 2}, ScaleCase{DType::Q5_K, 2}, ScaleCase{DType::Q6_K, 208},
                      ScaleCase{DType::IQ4_XS, 0}),
    [](const auto& info) {
        return std::string(dtype_name(info.param.type)) + "_at_" + std::to_string(info.param.offset);
    });

}  // namespace
}  // namespace snapdoc
