// Rope scaling: every kind's frequencies, as loaded from GGUF and from config.json, against the
// reference's own formulas (tests/support/reference_llama), and the CPU rotation at long positions
// (5000, 100000) against a direct double-precision rotation; plus the clear errors for bad rope
// descriptions and bad family tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/model/hf_config.h"
#include "engine/model/model.h"
#include "engine/model/rope_scaling.h"
#include "engine/session/run_context.h"
#include "engine/runtime/cpu/elementwise.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/reference_llama.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

struct RopeCase {
    const char* name;
    TinyModelSpec spec;
    int context = 0;
};

std::vector<RopeCase> rope_cases() {
    std::vector<RopeCase> v;
    TinyModelSpec s;
    s.dim = 128;
    s.n_heads = 2;
    s.n_kv_heads = 2;
    s.context_length = 131072;
    s.rope_theta = 500000.f;
    v.push_back({"none", s});
    s.rope = {RopeScalingKind::Linear, 4.f};
    v.push_back({"linear", s});
    s.rope = {RopeScalingKind::Llama3, 8.f, 8192, 1.f, 4.f};
    v.push_back({"llama3", s});
    s.arch = "qwen2";
    s.rope_theta = 1e6f;
    s.rope = {RopeScalingKind::Yarn, 4.f, 32768};
    v.push_back({"yarn", s});
    s.arch = "phi3";
    s.rope_theta = 10000.f;
    s.rope = {RopeScalingKind::LongRope, 1.f, 4096};
    v.push_back({"longrope_long", s});
    v.push_back({"longrope_short", s, 4096});
    return v;
}

class RopeKinds : public ::testing::TestWithParam<RopeCase> {};

TEST_P(RopeKinds, FrequenciesAndLongPositionRotationMatchTheFormula) {
    const RopeCase& c = GetParam();
    TempDir dir;
    const TinyWeights w = make_tiny_weights(c.spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    write_tiny_hf(dir / "hf", w, DType::F32);
    const ReferenceRope ref = reference_rope(w, c.context);
    const int hd = w.head_dim(), half = hd / 2;
    for (const auto& path : {dir / "m.gguf", dir / "hf"}) {
        const ModelConfig cfg = load_model(path).config;
        const int ctx = c.context > 0 ? c.context : cfg.context_length;
        const RopeFrequencies f = rope_frequencies(cfg.head_dim, cfg.rope_theta, cfg.rope_scaling, ctx);
        ASSERT_EQ(static_cast<int>(f.inv_freq.size()), half);
        for (int i = 0; i < half; ++i)
            EXPECT_NEAR(f.inv_freq[i] / ref.inv_freq[i], 1.0, 1e-6) << path << " pair " << i;
        EXPECT_NEAR(f.attention_factor, ref.attention_factor, 1e-6) << path;

        // Rotate one head at long positions; compare with the rotation written out in double.
        cpu::Rope rope(hd, RopeStyle::RotateHalf, f);
        const std::vector<int32_t> positions = {0, 5000, 100000};
        rope.prepare(positions.data(), static_cast<int>(positions.size()));
        for (std::size_t r = 0; r < positions.size(); ++r) {
            std::vector<float> x(hd);
            for (int i = 0; i < hd; ++i) x[i] = std::sin(0.37 * i + 1.0);
            std::vector<float> y = x;
            rope.apply(y.data(), 1, static_cast<int>(r));
            for (int i = 0; i < half; ++i) {
                const double angle = positions[r] * ref.inv_freq[i];
                const double cs = std::cos(angle) * ref.attention_factor,
                             sn = std::sin(angle) * ref.attention_factor;
                EXPECT_NEAR(y[i], x[i] * cs - x[i + half] * sn, 2e-4)
                    << path << " position " << positions[r] << " pair " << i;
                EXPECT_NEAR(y[i + half], x[i] * sn + x[i + half] * cs, 2e-4)
                    << path << " position " << positions[r];
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Kinds, RopeKinds, ::testing::ValuesIn(rope_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Adjacent-pair rotation (GGUF llama) is the rotate-half one on permuted rows.
TEST(RopeStyles, AdjacentPairsEqualsRotateHalfOnPermutedDims) {
    const int hd = 16;
    RopeScaling s;
    const RopeFrequencies f = rope_frequencies(hd, 10000.0, s, 4096);
    cpu::Rope adjacent(hd, RopeStyle::AdjacentPairs, f), half(hd, RopeStyle::RotateHalf, f);
    const int32_t pos = 100000;
    adjacent.prepare(&pos, 1);
    half.prepare(&pos, 1);
    std::vector<float> x(hd);
    for (int i = 0; i < hd; ++i) x[i] = 0.1f * i - 0.5f;
    std::vector<float> a(hd), b = x;
    for (int i = 0; i < hd / 2; ++i) a[2 * i] = x[i], a[2 * i + 1] = x[i + hd / 2];
    adjacent.apply(a.data(), 1, 0);
    half.apply(b.data(), 1, 0);
    for (int i = 0; i < hd / 2; ++i) {
        EXPECT_FLOAT_EQ(a[2 * i], b[i]);
        EXPECT_FLOAT_EQ(a[2 * i + 1], b[i + hd / 2]);
    }
}

// The engine's llama3 factors equal the converter's (test support's own implementation).
TEST(RopeLlama3, FactorsMatchTheConverter) {
    const auto engine = llama3_frequency_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192);
    const auto converter = llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192);
    ASSERT_EQ(engine.size(), converter.size());
    for (std::size_t i = 0; i < engine.size(); ++i)
        EXPECT_NEAR(engine[i], converter[i], 1e-6 * converter[i]) << i;
    EXPECT_FLOAT_EQ(engine.front(), 1.0f);
    EXPECT_FLOAT_EQ(engine.back(), 8.0f);
}

// ---- bad input ----

nlohmann::json qwen_config() {
    return {{"architectures", {"Qwen2ForCausalLM"}},
            {"model_type", "qwen2"},
            {"hidden_size", 64},
            {"intermediate_size", 96},
            {"num_hidden_layers", 2},
            {"num_attention_heads", 4},
            {"num_key_value_heads", 2},
            {"max_position_embeddings", 4096},
            {"vocab_size", 320}};
}

// Issue 24: a document chat on a LongRoPE model ran at the declared 128K context, so with the long
// factors even for a 1K-token chat. It now runs at original_context (short factors) when the chat
// fits there; a longer chat, and every other scaling kind, keeps the model's own context.
TEST(RopeLongRope, ADocumentChatThatFitsTheOriginalContextUsesTheShortFactors) {
    RopeScaling s;
    s.kind = RopeScalingKind::LongRope;
    s.original_context = 4096;
    s.freq_factors.assign(8, 1.0f);
    s.long_freq_factors.assign(8, 2.0f);
    EXPECT_EQ(document_run_context(s, 1000), 4096);
    EXPECT_EQ(document_run_context(s, 4096), 4096);
    EXPECT_EQ(document_run_context(s, 4097), 0);
    EXPECT_FALSE(rope_frequencies(16, 10000.0, s, document_run_context(s, 1000)).long_factors);
    EXPECT_TRUE(rope_frequencies(16, 10000.0, s, 131072).long_factors);
    RopeScaling yarn = s;
    yarn.kind = RopeScalingKind::Yarn;
    yarn.long_freq_factors.clear();
    EXPECT_EQ(document_run_context(yarn, 1000), 0);
    EXPECT_EQ(document_run_context(RopeScaling{}, 1000), 0);
}

TEST(RopeErrors, ConfigJsonNamesTheProblem) {
    auto parse = [](const nlohmann::json& j) { return parse_hf_config(j.dump(), "config.json"); };
    nlohmann::json j = qwen_config();
    j["rope_scaling"] = {{"type", "ntk-by-parts"}, {"factor", 2}};
    EXPECT_FORMAT_ERROR(parse(j), "rope_scaling type 'ntk-by-parts' is not supported");
    j["rope_scaling"] = {{"type", "yarn"}};
    EXPECT_FORMAT_ERROR(parse(j), "rope_scaling of type 'yarn' has no 'factor'");
    j["rope_scaling"] = {
        {"rope_type", "llama3"}, {"factor", 8}, {"low_freq_factor", 1}, {"high_freq_factor", 4}};
    EXPECT_FORMAT_ERROR(parse(j), "needs a positive 'original_max_position_embeddings'");
    j["rope_scaling"] = {{"type", "longrope"},
                         {"short_factor", {1, 1, 1}},
                         {"long_factor", {1, 1, 1}},
                         {"original_max_position_embeddings", 1024}};
    EXPECT_FORMAT_ERROR(parse(j), "rope short factors has 3 values, expected head_dim / 2 = 8");
    j["rope_scaling"] = {{"type", "longrope"}, {"short_factor", {1, 1, 1, 1, 1, 1, 1, 1}}};
    EXPECT_FORMAT_ERROR(parse(j), "needs 'short_factor' and 'long_factor'");
    j["rope_scaling"] = nullptr;
    j["use_sliding_window"] = true;
    EXPECT_FORMAT_ERROR(parse(j), "use_sliding_window true is not supported");
    j.erase("use_sliding_window");
    j["partial_rotary_factor"] = 0.5;
    EXPECT_FORMAT_ERROR(parse(j), "partial_rotary_factor");
    // Qwen2's q/k/v biases need no key; Llama's attention_bias would put one on o_proj too.
    j.erase("partial_rotary_factor");
    j["attention_bias"] = true;
    EXPECT_NO_THROW(parse(j));
    j["architectures"] = {"LlamaForCausalLM"};
    j["model_type"] = "llama";
    EXPECT_FORMAT_ERROR(parse(j), "attention_bias true is not supported");
}

// Family tensors: a wrong fused shape, a missing declared bias, rope factors of the wrong length,
// an unknown rope scaling type — each a FormatError naming the thing.
class FamilyTensorErrors : public ::testing::Test {
protected:
    std::filesystem::path write(const TinyModelSpec& spec, const GgufEdit& edit) {
        const auto src = dir_ / ("src" + std::to_string(n_) + ".gguf");
        const auto dst = dir_ / ("dst" + std::to_string(n_++) + ".gguf");
        write_tiny_gguf(src, make_tiny_weights(spec), DType::F32);
        rewrite_gguf(src, dst, edit);
        return dst;
    }
    // Changes the outermost dimension of one tensor (F32), resizing its bytes to match.
    static GgufEdit resize_tensor(const std::string& name, int64_t rows) {
        GgufEdit e;
        e.tensor = [name, rows](std::string& n, std::vector<int64_t>& shape, uint32_t&,
                                std::vector<uint8_t>& bytes) {
            if (n != name) return true;
            const int64_t inner = shape.size() > 1 ? shape[1] : 1;
            shape[0] = rows;
            bytes.resize(static_cast<std::size_t>(rows * inner) * 4);
            return true;
        };
        return e;
    }
    static GgufEdit drop_tensor(const std::string& name) {
        GgufEdit e;
        e.tensor = [name](std::string& n, std::vector<int64_t>&, uint32_t&, std::vector<uint8_t>&) {
            return n != name;
        };
        return e;
    }
    TempDir dir_;
    int n_ = 0;
};

TEST_F(FamilyTensorErrors, EachNamesTheTensorOrKey) {
    TinyModelSpec phi;
    phi.arch = "phi3";
    phi.n_kv_heads = 4;
    phi.context_length = 4096;
    phi.rope = {RopeScalingKind::LongRope, 1.f, 512};
    EXPECT_FORMAT_ERROR(load_model(write(phi, resize_tensor("blk.1.attn_qkv.weight", 191))),
                        "tensor 'blk.1.attn_qkv.weight' has shape [191, 64], expected [192, 64]");
    EXPECT_FORMAT_ERROR(load_model(write(phi, drop_tensor("blk.0.ffn_up.weight"))),
                        "missing tensor 'blk.0.ffn_up.weight'");
    EXPECT_FORMAT_ERROR(load_model(write(phi, drop_tensor("rope_factors_long.weight"))),
                        "LongRoPE needs both");
    EXPECT_FORMAT_ERROR(load_model(write(phi, resize_tensor("rope_factors_short.weight", 7))),
                        "tensor 'rope_factors_short.weight' has shape [7], expected [8]");

    TinyModelSpec qwen;
    qwen.arch = "qwen2";
    EXPECT_FORMAT_ERROR(load_model(write(qwen, drop_tensor("blk.1.attn_k.bias"))),
                        "missing tensor 'blk.1.attn_k.bias'");
    TinyModelSpec qwen3;
    qwen3.arch = "qwen3";
    EXPECT_FORMAT_ERROR(load_model(write(qwen3, drop_tensor("blk.0.attn_q_norm.weight"))),
                        "missing tensor 'blk.0.attn_q_norm.weight'");

    TinyModelSpec llama;
    llama.rope = {RopeScalingKind::Llama3, 8.f, 256, 1.f, 4.f};
    EXPECT_FORMAT_ERROR(load_model(write(llama, resize_tensor("rope_freqs.weight", 16))),
                        "tensor 'rope_freqs.weight' has shape [16], expected [8]");
    GgufEdit unknown_type;
    unknown_type.add_meta = {{"llama.rope.scaling.type", GgufMetaValue::string("su-scaled")}};
    EXPECT_FORMAT_ERROR(load_model(write(TinyModelSpec{}, unknown_type)),
                        "rope scaling type 'su-scaled' is not supported (supported: none, linear, yarn)");
    GgufEdit yarn_without_context;
    yarn_without_context.add_meta = {{"llama.rope.scaling.type", GgufMetaValue::string("yarn")},
                                     {"llama.rope.scaling.factor", GgufMetaValue::f32(4.0f)}};
    // Without an original context llama.cpp takes the training context; so does snapdoc.
    const RopeScaling yarn = load_model(write(TinyModelSpec{}, yarn_without_context)).config.rope_scaling;
    EXPECT_EQ(yarn.kind, RopeScalingKind::Yarn);
    EXPECT_EQ(yarn.original_context, TinyModelSpec{}.context_length);
    EXPECT_NEAR(yarn.attention_factor, 0.1 * std::log(4.0) + 1.0, 1e-6);
}

}  // namespace
}  // namespace snapdoc
