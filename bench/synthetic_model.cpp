#include "bench/synthetic_model.h"

#include <cmath>

#include "engine/common/error.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/read_file.h"
#include "engine/model/gguf_file.h"
#include "engine/tokenizer/spm_proto.h"

namespace snapdoc::bench {

ModelConfig llama_shape(int layers, int dim, int heads, int kv_heads, int ffn, int vocab, int ctx, float theta) {
    ModelConfig c;
    c.n_layers = layers;
    c.dim = dim;
    c.n_heads = heads;
    c.n_kv_heads = kv_heads;
    c.head_dim = dim / heads;
    c.ffn_dim = ffn;
    c.vocab_size = vocab;
    c.context_length = ctx;
    c.rope_theta = theta;
    return c;
}

namespace {

ModelConfig llama(int layers, int dim, int heads, int kv_heads, int ffn, int vocab, int ctx, float theta = 10000.f) {
    return llama_shape(layers, dim, heads, kv_heads, ffn, vocab, ctx, theta);
}

// A cheap deterministic generator: weights only need realistic magnitudes, not quality.
struct XorShift {
    uint64_t s;
    float uniform() {  // in [-1, 1)
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return static_cast<float>(static_cast<int64_t>(s >> 40) - (int64_t{1} << 23)) / float(1 << 23);
    }
};

}  // namespace

const std::vector<SyntheticShape>& synthetic_shapes() {
    static const std::vector<SyntheticShape> shapes = {
        {"tiny", "2 layers, dim 64 (tests, smoke runs)", llama(2, 64, 4, 2, 172, 512, 4096)},
        {"llama-125m", "llama.cpp comparison shape: 12 layers, dim 768, 12/4 heads, FFN 2048, vocab 32000",
         llama(12, 768, 12, 4, 2048, 32000, 32768)},
        {"llama-1b", "TinyLlama-1.1B: 22 layers, dim 2048, 32/4 heads, FFN 5632", llama(22, 2048, 32, 4, 5632, 32000, 32768)},
        {"llama3.2-1b",
         "Llama-3.2-1B: 16 layers, dim 2048, 32/8 heads, FFN 8192, vocab 128256 (untied output here; the real file ties it)",
         llama(16, 2048, 32, 8, 8192, 128256, 131072, 500000.f)},
        {"qwen2.5-1.5b",
         "Qwen2.5-1.5B: 28 layers, dim 1536, 12/2 heads, FFN 8960, vocab 151936, q/k/v biases, tied output",
         llama(28, 1536, 12, 2, 8960, 151936, 32768, 1000000.f), "qwen2", true, true},
        {"llama3.1-8b", "Llama-3.1-8B: 32 layers, dim 4096, 32/8 heads, FFN 14336, vocab 128256",
         llama(32, 4096, 32, 8, 14336, 128256, 131072, 500000.f)},
        {"llama2-7b", "Llama-2-7B: 32 layers, dim 4096, 32 heads (MHA), FFN 11008", llama(32, 4096, 32, 32, 11008, 32000, 4096)},
        {"mistral-7b", "Mistral-7B: 32 layers, dim 4096, 32/8 heads, FFN 14336",
         llama(32, 4096, 32, 8, 14336, 32000, 32768, 1000000.f)},
    };
    return shapes;
}

const SyntheticShape& find_shape(const std::string& name) {
    std::string known;
    for (const auto& s : synthetic_shapes()) {
        if (s.name == name) return s;
        known += (known.empty() ? "" : ", ") + s.name;
    }
    throw Error("unknown shape '" + name + "' (known: " + known + ")");
}

DType parse_dtype(const std::string& name) {
    if (name == "f32") return DType::F32;
    if (name == "f16") return DType::F16;
    if (name == "bf16") return DType::BF16;
    if (name == "q8_0") return DType::Q8_0;
    // Every matrix in one block type by the simple quantizer (dtype.h), for timing the integer
    // paths of those types (not llama.cpp's mixes or its search-based quantizer).
    if (name == "q4_0") return DType::Q4_0;
    if (name == "q4_k") return DType::Q4_K;
    throw Error("unknown dtype '" + name + "' (f32, f16, bf16, q8_0, q4_0, q4_k)");
}

namespace {

// The vocabulary of a SentencePiece .model file as GGUF tokenizer metadata (the keys llama.cpp's
// converter writes for Llama 2).
void set_sentencepiece_vocab(GgufWriter& w, const std::filesystem::path& model_file, int vocab_size) {
    const VocabSpec v = vocab_from_sentencepiece(read_small_file(model_file));
    if (static_cast<int>(v.pieces.size()) != vocab_size) {
        throw Error("tokenizer " + model_file.string() + " has " + std::to_string(v.pieces.size()) +
                    " pieces, but the shape's vocab is " + std::to_string(vocab_size));
    }
    std::vector<int32_t> types = v.types;
    if (types.empty()) types.assign(v.pieces.size(), static_cast<int32_t>(GgufTokenType::Normal));
    w.set_string("tokenizer.ggml.model", "llama");
    w.set_string_array("tokenizer.ggml.tokens", v.pieces);
    w.set_f32_array("tokenizer.ggml.scores", v.scores);
    w.set_i32_array("tokenizer.ggml.token_type", types);
    w.set_u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos_id));
    w.set_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos_id));
    w.set_u32("tokenizer.ggml.unknown_token_id", static_cast<uint32_t>(v.unk_id));
    w.set_bool("tokenizer.ggml.add_space_prefix", v.add_dummy_prefix);
}

// The tokenizer.* keys of another GGUF file (e.g. a Llama 3 BPE vocabulary), copied as they are.
void copy_gguf_vocab(GgufWriter& w, const std::filesystem::path& gguf, int vocab_size) {
    const GgufFile src = GgufFile::open(gguf);
    const auto tokens = src.find("tokenizer.ggml.tokens");
    if (tokens == nullptr || static_cast<int64_t>(tokens->count) != vocab_size)
        throw Error("tokenizer " + gguf.string() + " has " + std::to_string(tokens ? tokens->count : 0) +
                    " tokens, but the shape's vocab is " + std::to_string(vocab_size));
    for (const GgufFile::Entry& e : src.entries())
        if (e.key.rfind("tokenizer.", 0) == 0) w.set(e.key, src.value(e.key));
}

}  // namespace

std::filesystem::path write_synthetic_model(const SyntheticShape& shape, DType dtype, const std::filesystem::path& file,
                                            const std::filesystem::path& sentencepiece_model) {
    if (std::filesystem::exists(file)) return file;
    const ModelConfig& c = shape.config;
    GgufWriter w;
    const std::string a = shape.architecture;
    w.set_string("general.architecture", a);
    w.set_string("general.name", "synthetic " + shape.name);
    w.set_u32(a + ".block_count", c.n_layers);
    w.set_u32(a + ".embedding_length", c.dim);
    w.set_u32(a + ".feed_forward_length", c.ffn_dim);
    w.set_u32(a + ".attention.head_count", c.n_heads);
    w.set_u32(a + ".attention.head_count_kv", c.n_kv_heads);
    w.set_u32(a + ".context_length", c.context_length);
    w.set_u32(a + ".vocab_size", c.vocab_size);
    w.set_u32(a + ".rope.dimension_count", c.head_dim);
    w.set_f32(a + ".rope.freq_base", c.rope_theta);
    w.set_f32(a + ".attention.layer_norm_rms_epsilon", c.norm_eps);
    if (sentencepiece_model.extension() == ".gguf")
        copy_gguf_vocab(w, sentencepiece_model, c.vocab_size);
    else if (!sentencepiece_model.empty())
        set_sentencepiece_vocab(w, sentencepiece_model, c.vocab_size);

    uint64_t seed = 1;
    auto matrix = [&](const std::string& name, int64_t rows, int64_t cols) {
        const float scale = 1.0f / std::sqrt(static_cast<float>(cols));
        const uint64_t s = 0x9E3779B97F4A7C15ull * ++seed;
        w.add_tensor_generated(name, {rows, cols}, dtype, [s, scale](int64_t row, std::span<float> out) {
            XorShift g{(s ^ (static_cast<uint64_t>(row) * 0xBF58476D1CE4E5B9ull)) | 1};
            for (float& x : out) x = g.uniform() * scale * 1.7f;  // uniform with std ≈ scale
        });
    };
    auto filled = [&](const std::string& name, int64_t n, float value) {
        w.add_tensor_generated(name, {n}, DType::F32, [value](int64_t, std::span<float> out) {
            for (float& x : out) x = value;
        });
    };
    auto ones = [&](const std::string& name, int64_t n) { filled(name, n, 1.0f); };
    matrix("token_embd.weight", c.vocab_size, c.dim);
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        ones(p + "attn_norm.weight", c.dim);
        matrix(p + "attn_q.weight", c.q_dim(), c.dim);
        matrix(p + "attn_k.weight", c.kv_dim(), c.dim);
        matrix(p + "attn_v.weight", c.kv_dim(), c.dim);
        if (shape.qkv_bias) {  // small constant biases: their cost, not their values, is measured
            filled(p + "attn_q.bias", c.q_dim(), 0.01f);
            filled(p + "attn_k.bias", c.kv_dim(), 0.01f);
            filled(p + "attn_v.bias", c.kv_dim(), 0.01f);
        }
        matrix(p + "attn_output.weight", c.dim, c.q_dim());
        ones(p + "ffn_norm.weight", c.dim);
        matrix(p + "ffn_gate.weight", c.ffn_dim, c.dim);
        matrix(p + "ffn_up.weight", c.ffn_dim, c.dim);
        matrix(p + "ffn_down.weight", c.dim, c.ffn_dim);
    }
    ones("output_norm.weight", c.dim);
    if (!shape.tied_output) matrix("output.weight", c.vocab_size, c.dim);
    w.write(file);
    return file;
}

}  // namespace snapdoc::bench
