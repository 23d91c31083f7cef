// Loading tiny random-weight models in both formats and every dtype: configs, exact weights (after
// undoing the GGUF Q/K permutation the two formats hold the same numbers), sharding, tied
// embeddings, tokenizer and chat template plumbing, and load_model's dispatch.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "engine/model/gguf_model.h"
#include "engine/model/hf_model.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/tokenizer/spm_proto.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/safetensors_writer.h"
#include "tests/support/spm_trainer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

std::vector<float> floats(const TensorView& v) {
    std::vector<float> out(static_cast<std::size_t>(v.numel()));
    const int64_t cols = v.cols() > 0 ? v.cols() : 1;
    for (int64_t r = 0; r < v.numel() / cols; ++r) dequantize_row(v.dtype, v.row_ptr(r), out.data() + r * cols, cols);
    return out;
}

// What a tensor holds after being stored in `dtype` (rows of `cols`).
std::vector<float> stored(const std::vector<float>& src, DType dtype, int64_t cols) {
    std::vector<uint8_t> buf(dtype_row_bytes(dtype, cols));
    std::vector<float> out(src.size());
    for (std::size_t r = 0; r < src.size() / static_cast<std::size_t>(cols); ++r) {
        quantize_row(dtype, src.data() + r * cols, buf.data(), cols);
        dequantize_row(dtype, buf.data(), out.data() + r * cols, cols);
    }
    return out;
}

int64_t expected_params(const TinyModelSpec& s) {
    const int64_t hd = s.dim / s.n_heads, q = s.n_heads * hd, kv = s.n_kv_heads * hd;
    const int64_t per_layer = 2 * s.dim + q * s.dim + 2 * kv * s.dim + s.dim * q + 3 * int64_t{s.ffn_dim} * s.dim;
    return int64_t{s.vocab_size} * s.dim * (s.tied ? 1 : 2) + s.n_layers * per_layer + s.dim;
}

void expect_config(const ModelConfig& c, const TinyModelSpec& s) {
    EXPECT_EQ(c.architecture, "llama");
    EXPECT_EQ(c.n_layers, s.n_layers);
    EXPECT_EQ(c.dim, s.dim);
    EXPECT_EQ(c.n_heads, s.n_heads);
    EXPECT_EQ(c.n_kv_heads, s.n_kv_heads);
    EXPECT_EQ(c.head_dim, s.dim / s.n_heads);
    EXPECT_EQ(c.ffn_dim, s.ffn_dim);
    EXPECT_EQ(c.vocab_size, s.vocab_size);
    EXPECT_EQ(c.context_length, s.context_length);
    EXPECT_FLOAT_EQ(c.norm_eps, s.norm_eps);
    EXPECT_FLOAT_EQ(c.rope_theta, s.rope_theta);
    EXPECT_FLOAT_EQ(c.rope_scaling.factor, s.rope_linear_scale);
    EXPECT_EQ(c.tied_embeddings, s.tied);
    EXPECT_EQ(c.bos_id, 1);
    EXPECT_EQ(c.eos_id, 2);
}

// Every tensor of `m` equals the source weights as stored in `dtype`; GGUF Q/K rows are compared
// after undoing the permutation, so this also proves both formats describe the same weights.
void expect_weights(const Model& m, const TinyWeights& w, DType dtype) {
    const TinyModelSpec& s = w.spec;
    const bool gguf = m.format == ModelFormat::Gguf;
    const DType norm_dtype = gguf ? DType::F32 : dtype;  // GGUF norms are always F32
    auto same = [&](const TensorView& v, const std::vector<float>& src, DType dt, const char* what) {
        ASSERT_TRUE(v.valid()) << what;
        EXPECT_EQ(v.dtype, dt) << what;
        ASSERT_EQ(v.numel(), static_cast<int64_t>(src.size())) << what;
        EXPECT_EQ(floats(v), stored(src, dt, v.cols())) << what << " (" << v.name << ")";
    };
    auto qk = [&](const TensorView& v, int heads) {
        std::vector<float> f = floats(v);
        return gguf ? unpermute_qk_from_gguf(f, heads, s.dim) : f;
    };
    same(m.weights.tok_embeddings, w.tok_embeddings, dtype, "tok_embeddings");
    ASSERT_EQ(static_cast<int>(m.weights.layers.size()), s.n_layers);
    for (int l = 0; l < s.n_layers; ++l) {
        const LayerWeights& L = m.weights.layers[l];
        const auto& W = w.layers[l];
        same(L.attn_norm, W.attn_norm, norm_dtype, "attn_norm");
        same(L.ffn_norm, W.ffn_norm, norm_dtype, "ffn_norm");
        same(L.wv, W.wv, dtype, "wv");
        same(L.wo, W.wo, dtype, "wo");
        same(L.w_gate, W.w_gate, dtype, "w_gate");
        same(L.w_up, W.w_up, dtype, "w_up");
        same(L.w_down, W.w_down, dtype, "w_down");
        EXPECT_EQ(L.wq.shape, (std::vector<int64_t>{s.dim, s.dim}));
        EXPECT_EQ(qk(L.wq, s.n_heads), stored(W.wq, dtype, s.dim)) << "wq layer " << l;
        EXPECT_EQ(qk(L.wk, s.n_kv_heads), stored(W.wk, dtype, s.dim)) << "wk layer " << l;
    }
    same(m.weights.out_norm, w.out_norm, norm_dtype, "out_norm");
    if (s.tied) {
        EXPECT_EQ(m.weights.output.data, m.weights.tok_embeddings.data);
    } else {
        same(m.weights.output, w.output, dtype, "output");
    }
}

class LoadTiny : public ::testing::TestWithParam<DType> {};

TEST_P(LoadTiny, GgufHoldsTheWeights) {
    const DType dt = GetParam();
    TempDir dir;
    TinyModelSpec spec;
    spec.seed = 3;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "m.gguf", w, dt);
    const Model m = load_model(dir / "m.gguf");
    EXPECT_EQ(m.format, ModelFormat::Gguf);
    EXPECT_EQ(m.path, dir / "m.gguf");
    expect_config(m.config, spec);
    EXPECT_EQ(m.config.rope_style, RopeStyle::AdjacentPairs);
    EXPECT_EQ(m.config.weight_dtype, dt);
    EXPECT_EQ(m.config.name, "tiny");
    expect_weights(m, w, dt);
    EXPECT_EQ(m.parameter_count(), expected_params(spec));
    EXPECT_FALSE(m.tokenizer_proto.empty());
    EXPECT_EQ(m.tokenizer_error, "");
    EXPECT_EQ(m.mappings.size(), 1u);
    const VocabSpec v = vocab_from_sentencepiece(m.tokenizer_proto);
    EXPECT_EQ(v.pieces, synthetic_vocab_pieces(spec.vocab_size));
}

class LoadTinyHf : public ::testing::TestWithParam<DType> {};  // safetensors has no Q8_0

TEST_P(LoadTinyHf, HoldsTheSameWeightsAsGguf) {
    const DType dt = GetParam();
    TempDir dir;
    TinyModelSpec spec;
    spec.seed = 4;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_hf(dir / "hf", w, dt);
    write_tiny_gguf(dir / "m.gguf", w, dt);
    const Model hf = load_model(dir / "hf");
    EXPECT_EQ(hf.format, ModelFormat::HuggingFace);
    expect_config(hf.config, spec);
    EXPECT_EQ(hf.config.rope_style, RopeStyle::RotateHalf);
    EXPECT_EQ(hf.config.weight_dtype, dt);
    expect_weights(hf, w, dt);
    EXPECT_EQ(hf.parameter_count(), expected_params(spec));
    // No tokenizer.model was written.
    EXPECT_TRUE(hf.tokenizer_proto.empty());
    EXPECT_NE(hf.tokenizer_error.find("no tokenizer.model in"), std::string::npos) << hf.tokenizer_error;

    // Byte for byte, the GGUF's un-permuted Q/K equal the HF rows (same rounding of the same floats).
    const Model gg = load_model(dir / "m.gguf");
    for (int l = 0; l < spec.n_layers; ++l) {
        EXPECT_EQ(unpermute_qk_from_gguf(floats(gg.weights.layers[l].wq), spec.n_heads, spec.dim),
                  floats(hf.weights.layers[l].wq));
        EXPECT_EQ(floats(gg.weights.layers[l].w_down), floats(hf.weights.layers[l].w_down));
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LoadTiny, ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Dtypes, LoadTinyHf, ::testing::Values(DType::F32, DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(ModelLoading, WeightBytesFollowTheDtype) {
    TempDir dir;
    TinyModelSpec spec;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "f32.gguf", w, DType::F32);
    write_tiny_gguf(dir / "q8.gguf", w, DType::Q8_0);
    const int64_t params = expected_params(spec);
    EXPECT_EQ(load_model(dir / "f32.gguf").weight_bytes(), 4 * params);
    const int64_t norms = (2 * spec.n_layers + 1) * int64_t{spec.dim};
    EXPECT_EQ(load_model(dir / "q8.gguf").weight_bytes(), 4 * norms + (params - norms) / 32 * 34);
}

TEST(ModelLoading, ShardedHuggingFaceEqualsSingleFile) {
    TempDir dir;
    TinyModelSpec spec;
    spec.n_layers = 3;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_hf(dir / "one", w, DType::BF16);
    write_tiny_hf(dir / "three", w, DType::BF16, 3);
    EXPECT_TRUE(std::filesystem::exists(dir / "three" / "model.safetensors.index.json"));
    const Model a = load_model(dir / "one");
    const Model b = load_model(dir / "three");
    EXPECT_EQ(b.mappings.size(), 3u);
    expect_weights(b, w, DType::BF16);
    EXPECT_EQ(a.parameter_count(), b.parameter_count());
    EXPECT_EQ(a.weight_bytes(), b.weight_bytes());
}

TEST(ModelLoading, TiedEmbeddingsShareOneTensor) {
    TempDir dir;
    TinyModelSpec spec;
    spec.tied = true;
    spec.n_kv_heads = 1;  // MQA as well
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F16);
    write_tiny_hf(dir / "hf", w, DType::F16);
    for (const auto& p : {dir / "m.gguf", dir / "hf"}) {
        const Model m = load_model(p);
        EXPECT_TRUE(m.config.tied_embeddings) << p;
        EXPECT_EQ(m.weights.output.data, m.weights.tok_embeddings.data);
        EXPECT_EQ(m.parameter_count(), expected_params(spec));  // counted once
        expect_weights(m, w, DType::F16);
    }
    // A HF folder that declares tied embeddings but still ships lm_head uses the embeddings.
    spec.tied = false;
    const TinyWeights untied = make_tiny_weights(spec);
    write_tiny_hf(dir / "hf2", untied, DType::F32);
    {
        auto cfg = read_file_bytes(dir / "hf2" / "config.json");
        const auto pos = cfg.find("\"tie_word_embeddings\": false");
        ASSERT_NE(pos, std::string::npos);
        cfg.replace(pos, 28, "\"tie_word_embeddings\": true");
        std::ofstream(dir / "hf2" / "config.json") << cfg;
    }
    const Model m = load_model(dir / "hf2");
    EXPECT_TRUE(m.config.tied_embeddings);
    EXPECT_EQ(m.weights.output.data, m.weights.tok_embeddings.data);
}

TEST(ModelLoading, RopeScalingAndShapesCarryOver) {
    TempDir dir;
    TinyModelSpec spec;
    spec.rope_linear_scale = 4.0f;
    spec.rope_theta = 500000.0f;
    spec.n_heads = 8;
    spec.n_kv_heads = 8;
    spec.context_length = 4096;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    write_tiny_hf(dir / "hf", w, DType::F32);
    for (const auto& p : {dir / "m.gguf", dir / "hf"}) {
        const Model m = load_model(p);
        expect_config(m.config, spec);
        expect_weights(m, w, DType::F32);
    }
}

TEST(ModelLoading, MistralGgufUsesItsKeyPrefix) {
    TempDir dir;
    TinyModelSpec spec;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "llama.gguf", w, DType::F32);
    GgufEdit edit;
    edit.meta = [](std::string& key, GgufMetaValue& value) {
        if (key == "general.architecture") value = GgufMetaValue::string("mistral");
        if (key.rfind("llama.", 0) == 0) key = "mistral." + key.substr(6);
        return true;
    };
    rewrite_gguf(dir / "llama.gguf", dir / "mistral.gguf", edit);
    const Model m = load_model(dir / "mistral.gguf");
    EXPECT_EQ(m.config.architecture, "mistral");
    EXPECT_EQ(m.config.n_layers, spec.n_layers);
    expect_weights(m, w, DType::F32);
}

// snapdoc.attention.head_roles (the demo model's head names, docs/demo_model.md "Head roles"): read
// layer-major into Model::head_roles; absent -> empty; a count other than n_layers x n_heads refused.
TEST(ModelLoading, HeadRolesAreReadAndAWrongCountIsRefused) {
    TempDir dir;
    TinyModelSpec spec;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(spec), DType::F32);
    EXPECT_TRUE(load_model(dir / "m.gguf").head_roles.empty());
    const auto with_roles = [&](int n, const std::string& name) {
        std::vector<GgufMetaValue> names;
        for (int i = 0; i < n; ++i) names.push_back(GgufMetaValue::string("role " + std::to_string(i)));
        GgufEdit edit;
        edit.add_meta.push_back({"snapdoc.attention.head_roles", GgufMetaValue::array(GgufType::String, names)});
        rewrite_gguf(dir / "m.gguf", dir / name, edit);
        return dir / name;
    };
    const int n = spec.n_layers * spec.n_heads;
    const Model m = load_model(with_roles(n, "roles.gguf"));
    ASSERT_EQ(m.head_roles.size(), static_cast<std::size_t>(n));
    EXPECT_EQ(m.head_roles[5], "role 5");
    EXPECT_FORMAT_ERROR(load_model(with_roles(n - 1, "short.gguf")), "snapdoc.attention.head_roles");
}

TEST(ModelLoading, RealTokenizerAndChatTemplates) {
    TempDir dir;
    TinyModelSpec spec;
    spec.vocab_size = 320;
    spec.tokenizer_model = train_tiny_sentencepiece(dir.path(), 320).string();
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    write_tiny_hf(dir / "hf", w, DType::F32);
    const Model gg = load_model(dir / "m.gguf");
    const Model hf = load_model(dir / "hf");
    EXPECT_EQ(hf.tokenizer_proto, read_file_bytes(spec.tokenizer_model));
    EXPECT_EQ(hf.tokenizer_error, "");
    const VocabSpec a = vocab_from_sentencepiece(gg.tokenizer_proto);
    const VocabSpec b = vocab_from_sentencepiece(hf.tokenizer_proto);
    EXPECT_EQ(a.pieces, b.pieces);
    EXPECT_EQ(a.scores, b.scores);
    EXPECT_EQ(a.bos_id, b.bos_id);
    EXPECT_EQ(a.eos_id, b.eos_id);
    EXPECT_EQ(gg.chat_template, "");
    EXPECT_EQ(hf.chat_template, "");

    // GGUF tokenizer.chat_template.
    GgufEdit edit;
    edit.add_meta.emplace_back("tokenizer.chat_template", GgufMetaValue::string("{{ messages }}"));
    rewrite_gguf(dir / "m.gguf", dir / "chat.gguf", edit);
    EXPECT_EQ(load_model(dir / "chat.gguf").chat_template, "{{ messages }}");

    // tokenizer_config.json: a string, or a list with a "default" entry.
    std::ofstream(dir / "hf" / "tokenizer_config.json") << R"({"chat_template": "[INST] {{ x }}"})";
    EXPECT_EQ(load_model(dir / "hf").chat_template, "[INST] {{ x }}");
    std::ofstream(dir / "hf" / "tokenizer_config.json")
        << R"({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]})";
    EXPECT_EQ(load_model(dir / "hf").chat_template, "D");
    std::ofstream(dir / "hf" / "tokenizer_config.json") << R"({"add_bos_token": true})";
    EXPECT_EQ(load_model(dir / "hf").chat_template, "");
    std::ofstream(dir / "hf" / "tokenizer_config.json") << R"({"chat_template": 5})";
    EXPECT_FORMAT_ERROR(load_model(dir / "hf"), "'chat_template' must be a string");
    std::ofstream(dir / "hf" / "tokenizer_config.json") << "{oops";
    EXPECT_FORMAT_ERROR(load_model(dir / "hf"), "tokenizer_config.json' is not valid JSON");
}

// Data that is not naturally aligned (GGUF alignment 1, an unpadded safetensors header) is copied
// into aligned buffers owned by the model, so the backend can read it as floats.
TEST(ModelLoading, MisalignedDataIsCopiedAligned) {
    TempDir dir;
    TinyModelSpec spec;
    spec.n_layers = 1;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    write_tiny_hf(dir / "hf", w, DType::F32);

    // GGUF with 1-byte alignment and a key whose length makes the data start at an odd offset.
    int copied = 0;
    for (const std::string pad : {"", "x", "xx", "xxx"}) {
        GgufEdit edit;
        edit.add_meta.emplace_back("general.pad", GgufMetaValue::string(pad));
        edit.add_meta.emplace_back("general.alignment", GgufMetaValue::u32(1));
        rewrite_gguf(dir / "m.gguf", dir / "b.gguf", edit);
        const Model m = load_model(dir / "b.gguf");
        copied += !m.owned_buffers.empty();
        expect_weights(m, w, DType::F32);
        for (const TensorView* v : {&m.weights.tok_embeddings, &m.weights.layers[0].wq, &m.weights.output}) {
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v->data) % 4, 0u) << v->name;
        }
    }
    EXPECT_EQ(copied, 3);  // three of the four pad lengths leave the data misaligned

    // safetensors whose header length is not a multiple of 4.
    const auto st = dir / "hf" / "model.safetensors";
    std::string bytes = read_file_bytes(st);
    uint64_t len = 0;
    std::memcpy(&len, bytes.data(), 8);
    std::string header = bytes.substr(8, len);
    header += " ";  // trailing whitespace is valid JSON
    write_raw_safetensors(st, header, bytes.substr(8 + len));
    const Model m = load_model(dir / "hf");
    EXPECT_FALSE(m.owned_buffers.empty());
    expect_weights(m, w, DType::F32);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.weights.layers[0].wq.data) % 4, 0u);
}

TEST(ModelLoading, LoadModelDispatch) {
    TempDir dir;
    TinyModelSpec spec;
    spec.n_layers = 1;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_hf(dir / "hf", w, DType::F32);
    write_tiny_gguf(dir / "m.bin", w, DType::F32);  // GGUF is recognised by its magic, not its name
    EXPECT_EQ(load_model(dir / "hf" / "config.json").format, ModelFormat::HuggingFace);
    EXPECT_EQ(load_model(dir / "hf" / "model.safetensors").format, ModelFormat::HuggingFace);
    EXPECT_EQ(load_model(dir / "m.bin").format, ModelFormat::Gguf);
    EXPECT_EQ(load_gguf_model(MappedFile::from_bytes("mem.gguf", read_file_bytes(dir / "m.bin"))).config.n_layers, 1);
    EXPECT_EQ(load_hf_model(dir / "hf").config.n_layers, 1);

    EXPECT_FORMAT_ERROR(load_model(dir / "nothing-here"), "does not exist");
    std::ofstream(dir / "notes.txt") << "hello world";
    EXPECT_FORMAT_ERROR(load_model(dir / "notes.txt"), "is neither a GGUF file");
    std::ofstream(dir / "empty.gguf");
    EXPECT_FORMAT_ERROR(load_model(dir / "empty.gguf"), "the file is empty");
    std::filesystem::create_directory(dir / "empty-dir");
    EXPECT_FORMAT_ERROR(load_model(dir / "empty-dir"), "has no config.json");
}

}  // namespace
}  // namespace snapdoc
