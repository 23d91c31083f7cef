// The real stories260K model (../shared/fixtures/stories260K) in its three forms: the GGUF, the
// Hugging Face F32 folder and the BF16 folder must load with the documented configuration and hold
// the same weights (GGUF Q/K rows un-permuted; BF16 = F32 rounded to nearest even).
#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/tokenizer/spm_proto.h"
#include "tests/support/fixtures.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

std::vector<float> floats(const TensorView& v) {
    std::vector<float> out(static_cast<std::size_t>(v.numel()));
    const int64_t cols = v.cols();
    for (int64_t r = 0; r < v.numel() / cols; ++r) dequantize_row(v.dtype, v.row_ptr(r), out.data() + r * cols, cols);
    return out;
}

void expect_stories_config(const ModelConfig& c) {
    EXPECT_EQ(c.architecture, "llama");
    EXPECT_EQ(c.n_layers, 5);
    EXPECT_EQ(c.dim, 64);
    EXPECT_EQ(c.n_heads, 8);
    EXPECT_EQ(c.n_kv_heads, 4);
    EXPECT_EQ(c.head_dim, 8);
    EXPECT_EQ(c.ffn_dim, 172);
    EXPECT_EQ(c.vocab_size, 512);
    EXPECT_EQ(c.context_length, 2048);
    EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
    EXPECT_FLOAT_EQ(c.rope_theta, 10000.0f);
    EXPECT_EQ(c.rope_scaling.kind, RopeScalingKind::None);
    EXPECT_EQ(c.bos_id, 1);
    EXPECT_EQ(c.eos_id, 2);
    EXPECT_FALSE(c.tied_embeddings);
}

// All (name, view) pairs of a model, in a fixed order shared by both formats.
std::vector<std::pair<std::string, TensorView>> all_tensors(const Model& m) {
    std::vector<std::pair<std::string, TensorView>> t = {{"tok_embeddings", m.weights.tok_embeddings}};
    for (std::size_t l = 0; l < m.weights.layers.size(); ++l) {
        const LayerWeights& L = m.weights.layers[l];
        const std::string p = "layer" + std::to_string(l) + ".";
        for (const auto& [n, v] : {std::pair{"attn_norm", L.attn_norm}, {"wq", L.wq}, {"wk", L.wk}, {"wv", L.wv}, {"wo", L.wo},
                                   {"ffn_norm", L.ffn_norm}, {"w_gate", L.w_gate}, {"w_up", L.w_up}, {"w_down", L.w_down}}) {
            t.emplace_back(p + n, v);
        }
    }
    t.emplace_back("out_norm", m.weights.out_norm);
    t.emplace_back("output", m.weights.output);
    return t;
}

TEST(ModelFixtures, Stories260KInAllThreeForms) {
    SNAPDOC_REQUIRE_FIXTURE("stories260K/stories260K.gguf");
    SNAPDOC_REQUIRE_FIXTURE("stories260K/hf-f32/config.json");
    SNAPDOC_REQUIRE_FIXTURE("stories260K/hf-bf16/config.json");
    const Model gg = load_model(fixture_path("stories260K/stories260K.gguf"));
    const Model f32 = load_model(fixture_path("stories260K/hf-f32"));
    const Model bf16 = load_model(fixture_path("stories260K/hf-bf16"));

    expect_stories_config(gg.config);
    expect_stories_config(f32.config);
    expect_stories_config(bf16.config);
    EXPECT_EQ(gg.config.rope_style, RopeStyle::AdjacentPairs);
    EXPECT_EQ(f32.config.rope_style, RopeStyle::RotateHalf);
    EXPECT_EQ(bf16.config.rope_style, RopeStyle::RotateHalf);
    EXPECT_EQ(gg.config.weight_dtype, DType::F32);
    EXPECT_EQ(f32.config.weight_dtype, DType::F32);
    EXPECT_EQ(bf16.config.weight_dtype, DType::BF16);

    for (const Model* m : {&gg, &f32, &bf16}) {
        EXPECT_FALSE(m->tokenizer_proto.empty()) << m->path;
        EXPECT_EQ(m->tokenizer_error, "") << m->path;
    }
    // Same vocabulary from the GGUF metadata and from tokenizer.model.
    const VocabSpec va = vocab_from_sentencepiece(gg.tokenizer_proto);
    const VocabSpec vb = vocab_from_sentencepiece(f32.tokenizer_proto);
    EXPECT_EQ(va.pieces.size(), 512u);
    EXPECT_EQ(va.pieces, vb.pieces);
    EXPECT_EQ(va.scores, vb.scores);

    // Parameter count: 2 * 512 * 64 embeddings/head + 5 layers + final norm.
    const int64_t per_layer = 2 * 64 + 64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 172 * 64;
    EXPECT_EQ(gg.parameter_count(), 2 * 512 * 64 + 5 * per_layer + 64);
    EXPECT_EQ(f32.parameter_count(), gg.parameter_count());
    EXPECT_EQ(bf16.weight_bytes() * 2, f32.weight_bytes());

    const auto tg = all_tensors(gg), tf = all_tensors(f32), tb = all_tensors(bf16);
    ASSERT_EQ(tg.size(), tf.size());
    for (std::size_t i = 0; i < tg.size(); ++i) {
        const std::string& name = tg[i].first;
        SCOPED_TRACE(name);
        EXPECT_EQ(tg[i].second.shape, tf[i].second.shape);
        std::vector<float> g = floats(tg[i].second);
        const bool is_q = name.ends_with(".wq"), is_k = name.ends_with(".wk");
        if (is_q || is_k) g = testing::unpermute_qk_from_gguf(g, is_q ? 8 : 4, 64);
        const std::vector<float> f = floats(tf[i].second);
        EXPECT_EQ(g, f);
        const std::vector<float> b = floats(tb[i].second);
        ASSERT_EQ(b.size(), f.size());
        std::size_t mismatches = 0;
        for (std::size_t j = 0; j < f.size(); ++j) mismatches += b[j] != bf16_to_f32(f32_to_bf16(f[j]));
        EXPECT_EQ(mismatches, 0u);
    }
}

}  // namespace
}  // namespace snapdoc
