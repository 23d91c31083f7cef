#include "tests/support/tiny_model.h"

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "engine/model/architecture.h"
#include "engine/model/gguf_writer.h"
#include "engine/tokenizer/spm_proto.h"
#include "tests/support/safetensors_writer.h"

namespace snapdoc::testing {

namespace {

// splitmix64 + Box-Muller: the same numbers on every platform and standard library.
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }  // (0, 1)
    float normal() {
        const double u1 = uniform(), u2 = uniform();
        return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
    }

private:
    uint64_t state_;
};

std::vector<float> random_matrix(Rng& rng, int rows, int cols, float scale) {
    std::vector<float> m(static_cast<std::size_t>(rows) * cols);
    for (float& x : m) x = rng.normal() * scale;
    return m;
}

std::vector<float> norm_weights(Rng& rng, int n) {
    std::vector<float> v(n);
    for (float& x : v) x = 1.0f + 0.1f * rng.normal();
    return v;
}

std::vector<float> permute_rows(const std::vector<float>& m, int n_heads, int cols, bool to_gguf) {
    const std::size_t rows = m.size() / static_cast<std::size_t>(cols);
    const int hd = static_cast<int>(rows) / n_heads;
    const int half = hd / 2;
    std::vector<float> out(m.size());
    for (int h = 0; h < n_heads; ++h) {
        for (int i = 0; i < half; ++i) {
            for (int part = 0; part < 2; ++part) {
                const std::size_t hf_row = static_cast<std::size_t>(h) * hd + part * half + i;  // rotate-half order
                const std::size_t gg_row = static_cast<std::size_t>(h) * hd + 2 * i + part;     // adjacent pairs
                const std::size_t src = to_gguf ? hf_row : gg_row, dst = to_gguf ? gg_row : hf_row;
                std::copy_n(m.begin() + static_cast<std::ptrdiff_t>(src * cols), cols,
                            out.begin() + static_cast<std::ptrdiff_t>(dst * cols));
            }
        }
    }
    return out;
}

bool permutes_qk(const std::string& arch) { return arch == "llama" || arch == "mistral"; }

std::vector<float> concat(std::initializer_list<const std::vector<float>*> parts) {
    std::vector<float> out;
    for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void set_tokenizer(GgufWriter& g, const TinyModelSpec& spec) {
    VocabSpec v;
    if (!spec.tokenizer_model.empty()) {
        v = vocab_from_sentencepiece(read_bytes(spec.tokenizer_model));
        if (static_cast<int>(v.pieces.size()) != spec.vocab_size) {
            throw std::invalid_argument("tokenizer " + spec.tokenizer_model + " has " + std::to_string(v.pieces.size()) +
                                        " pieces but the tiny model's vocab_size is " + std::to_string(spec.vocab_size));
        }
    } else {
        if (spec.vocab_size < 3) return;  // too small for <unk>, <s>, </s>: no tokenizer
        v.pieces = synthetic_vocab_pieces(spec.vocab_size);
        const bool bytes = spec.vocab_size >= 260;
        v.types.assign(v.pieces.size(), static_cast<int32_t>(GgufTokenType::Normal));
        v.scores.assign(v.pieces.size(), 0.0f);
        v.types[0] = static_cast<int32_t>(GgufTokenType::Unknown);
        v.types[1] = v.types[2] = static_cast<int32_t>(GgufTokenType::Control);
        const int first_normal = bytes ? 3 + 256 : 3;
        if (bytes) {
            for (int i = 3; i < first_normal; ++i) v.types[i] = static_cast<int32_t>(GgufTokenType::Byte);
        }
        for (int i = first_normal; i < spec.vocab_size; ++i) v.scores[i] = -static_cast<float>(i - first_normal);
        v.byte_fallback = bytes;
    }
    if (v.types.empty()) v.types.assign(v.pieces.size(), static_cast<int32_t>(GgufTokenType::Normal));
    g.set_string("tokenizer.ggml.model", "llama");
    g.set_string_array("tokenizer.ggml.tokens", v.pieces);
    g.set_f32_array("tokenizer.ggml.scores", v.scores);
    g.set_i32_array("tokenizer.ggml.token_type", v.types);
    g.set_u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos_id));
    g.set_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos_id));
    g.set_u32("tokenizer.ggml.unknown_token_id", static_cast<uint32_t>(v.unk_id));
    if (v.pad_id >= 0) g.set_u32("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(v.pad_id));
    g.set_bool("tokenizer.ggml.add_space_prefix", v.add_dummy_prefix);
}

}  // namespace

std::vector<std::string> synthetic_vocab_pieces(int vocab_size) {
    std::vector<std::string> p = {"<unk>", "<s>", "</s>"};
    if (vocab_size >= 260) {
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            p.push_back(name);
        }
    }
    const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's word-start marker
    std::vector<std::string> candidates = {space};
    for (char c = 'a'; c <= 'z'; ++c) candidates.push_back(std::string(1, c));
    for (char c = 'a'; c <= 'z'; ++c) candidates.push_back(space + c);
    for (char a = 'a'; a <= 'z'; ++a)
        for (char b = 'a'; b <= 'z'; ++b) candidates.push_back(std::string{a, b});
    for (std::size_t i = 0; static_cast<int>(p.size()) < vocab_size; ++i) {
        p.push_back(i < candidates.size() ? candidates[i] : "tok" + std::to_string(i));
    }
    p.resize(static_cast<std::size_t>(std::max(vocab_size, 0)));
    return p;
}

std::vector<float> permute_qk_for_gguf(const std::vector<float>& m, int n_heads, int cols) {
    return permute_rows(m, n_heads, cols, true);
}

std::vector<float> unpermute_qk_from_gguf(const std::vector<float>& m, int n_heads, int cols) {
    return permute_rows(m, n_heads, cols, false);
}

TinyRopeSpec effective_rope(const TinyModelSpec& s) {
    TinyRopeSpec r = s.rope;
    if (r.kind == RopeScalingKind::None && s.rope_linear_scale != 1.0f) {
        r.kind = RopeScalingKind::Linear;
        r.factor = s.rope_linear_scale;
    }
    return r;
}

std::vector<float> llama3_factors(int head_dim, double theta, double factor, double low_freq_factor,
                                  double high_freq_factor, int original_context) {
    std::vector<float> out;
    for (int i = 0; i < head_dim; i += 2) {
        const double freq = 1.0 / std::pow(theta, static_cast<double>(i) / head_dim);
        const double wavelen = 2 * std::numbers::pi / freq;
        if (wavelen < original_context / high_freq_factor) {
            out.push_back(1.0f);
        } else if (wavelen > original_context / low_freq_factor) {
            out.push_back(static_cast<float>(factor));
        } else {
            const double smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
            out.push_back(static_cast<float>(1.0 / ((1 - smooth) / factor + smooth)));
        }
    }
    return out;
}

TinyWeights make_tiny_weights(const TinyModelSpec& s) {
    if (s.n_heads <= 0 || (s.head_dim <= 0 && s.dim % s.n_heads != 0) || s.n_kv_heads <= 0 ||
        s.n_heads % s.n_kv_heads != 0) {
        throw std::invalid_argument("TinyModelSpec: inconsistent head counts");
    }
    if (!find_gguf_architecture(s.arch)) throw std::invalid_argument("TinyModelSpec: unknown arch " + s.arch);
    Rng rng(s.seed);
    TinyWeights w;
    w.spec = s;
    const int hd = w.head_dim(), q = s.n_heads * hd, kv = s.n_kv_heads * hd;
    const float in_dim = 1.0f / std::sqrt(static_cast<float>(s.dim));
    w.tok_embeddings = random_matrix(rng, s.vocab_size, s.dim, 1.0f);
    for (int l = 0; l < s.n_layers; ++l) {
        TinyWeights::Layer L;
        L.attn_norm = norm_weights(rng, s.dim);
        L.wq = random_matrix(rng, q, s.dim, in_dim);
        L.wk = random_matrix(rng, kv, s.dim, in_dim);
        L.wv = random_matrix(rng, kv, s.dim, in_dim);
        L.wo = random_matrix(rng, s.dim, q, 1.0f / std::sqrt(static_cast<float>(q)));
        L.ffn_norm = norm_weights(rng, s.dim);
        L.w_gate = random_matrix(rng, s.ffn_dim, s.dim, in_dim);
        L.w_up = random_matrix(rng, s.ffn_dim, s.dim, in_dim);
        L.w_down = random_matrix(rng, s.dim, s.ffn_dim, 1.0f / std::sqrt(static_cast<float>(s.ffn_dim)));
        // Drawn after the common weights, so a llama spec gives the same model as before.
        if (s.arch == "qwen2") {
            L.bq = random_matrix(rng, 1, q, 0.3f);
            L.bk = random_matrix(rng, 1, kv, 0.3f);
            L.bv = random_matrix(rng, 1, kv, 0.05f);
        }
        if (s.arch == "qwen3") {
            L.q_norm = norm_weights(rng, hd);
            L.k_norm = norm_weights(rng, hd);
        }
        w.layers.push_back(std::move(L));
    }
    w.out_norm = norm_weights(rng, s.dim);
    if (!s.tied) w.output = random_matrix(rng, s.vocab_size, s.dim, in_dim);
    const TinyRopeSpec rope = effective_rope(s);
    if (rope.kind == RopeScalingKind::Llama3) {
        w.rope_freqs = llama3_factors(hd, s.rope_theta, rope.factor, rope.low_freq_factor, rope.high_freq_factor,
                                      rope.original_context);
    } else if (rope.kind == RopeScalingKind::LongRope) {
        for (int i = 0; i < hd / 2; ++i) {
            const double t = static_cast<double>(i) / std::max(1, hd / 2 - 1);
            w.rope_short.push_back(static_cast<float>(1.0 + 0.6 * t * t * t));
            w.rope_long.push_back(static_cast<float>(1.1 * std::pow(20.0 / 1.1, t)));
        }
    }
    return w;
}

void write_tiny_gguf(const std::filesystem::path& file, const TinyWeights& w, DType dtype) {
    const TinyModelSpec& s = w.spec;
    const int hd = w.head_dim(), q = s.n_heads * hd, kv = s.n_kv_heads * hd;
    const std::string a = s.arch + ".";
    const TinyRopeSpec rope = effective_rope(s);
    GgufWriter g;
    g.set_string("general.architecture", s.arch);
    g.set_string("general.name", "tiny");
    g.set_u32(a + "block_count", static_cast<uint32_t>(s.n_layers));
    g.set_u32(a + "context_length", static_cast<uint32_t>(s.context_length));
    g.set_u32(a + "embedding_length", static_cast<uint32_t>(s.dim));
    g.set_u32(a + "feed_forward_length", static_cast<uint32_t>(s.ffn_dim));
    g.set_u32(a + "attention.head_count", static_cast<uint32_t>(s.n_heads));
    g.set_u32(a + "attention.head_count_kv", static_cast<uint32_t>(s.n_kv_heads));
    g.set_f32(a + "attention.layer_norm_rms_epsilon", s.norm_eps);
    g.set_f32(a + "rope.freq_base", s.rope_theta);
    g.set_u32(a + "rope.dimension_count", static_cast<uint32_t>(hd));
    if (s.head_dim > 0 || s.arch == "qwen3") {  // as the converter does when config.json has head_dim
        g.set_u32(a + "attention.key_length", static_cast<uint32_t>(hd));
        g.set_u32(a + "attention.value_length", static_cast<uint32_t>(hd));
    }
    switch (rope.kind) {
        case RopeScalingKind::Linear:
            g.set_string(a + "rope.scaling.type", "linear");
            g.set_f32(a + "rope.scaling.factor", rope.factor);
            break;
        case RopeScalingKind::Yarn:
            g.set_string(a + "rope.scaling.type", "yarn");
            g.set_f32(a + "rope.scaling.factor", rope.factor);
            g.set_u32(a + "rope.scaling.original_context_length", static_cast<uint32_t>(rope.original_context));
            break;
        case RopeScalingKind::LongRope: {
            // Phi3MiniModel writes no type, the original context and the attention factor.
            const double scale = static_cast<double>(s.context_length) / rope.original_context;
            g.set_u32(a + "rope.scaling.original_context_length", static_cast<uint32_t>(rope.original_context));
            g.set_f32(a + "rope.scaling.attn_factor",
                      static_cast<float>(std::sqrt(1 + std::log(scale) / std::log(rope.original_context))));
            break;
        }
        default: break;  // llama3: the rope_freqs tensor alone, as the converter writes it
    }
    if (s.sliding_window > 0) g.set_u32(a + "attention.sliding_window", static_cast<uint32_t>(s.sliding_window));
    g.set_u32("general.file_type", 0);
    set_tokenizer(g, s);

    const auto shape2 = [](int rows, int cols) { return std::vector<int64_t>{rows, cols}; };
    const bool permute = permutes_qk(s.arch);
    g.add_tensor("token_embd.weight", shape2(s.vocab_size, s.dim), dtype, w.tok_embeddings);
    if (!w.rope_freqs.empty()) g.add_tensor("rope_freqs.weight", {hd / 2}, DType::F32, w.rope_freqs);
    if (!w.rope_short.empty()) {
        g.add_tensor("rope_factors_short.weight", {hd / 2}, DType::F32, w.rope_short);
        g.add_tensor("rope_factors_long.weight", {hd / 2}, DType::F32, w.rope_long);
    }
    for (int l = 0; l < s.n_layers; ++l) {
        const auto& L = w.layers[l];
        const std::string p = "blk." + std::to_string(l) + ".";
        g.add_tensor(p + "attn_norm.weight", {s.dim}, DType::F32, L.attn_norm);
        const std::vector<float> wq = permute ? permute_qk_for_gguf(L.wq, s.n_heads, s.dim) : L.wq;
        const std::vector<float> wk = permute ? permute_qk_for_gguf(L.wk, s.n_kv_heads, s.dim) : L.wk;
        if (s.arch == "phi3") {
            g.add_tensor(p + "attn_qkv.weight", shape2(q + 2 * kv, s.dim), dtype, concat({&wq, &wk, &L.wv}));
        } else {
            g.add_tensor(p + "attn_q.weight", shape2(q, s.dim), dtype, wq);
            g.add_tensor(p + "attn_k.weight", shape2(kv, s.dim), dtype, wk);
            g.add_tensor(p + "attn_v.weight", shape2(kv, s.dim), dtype, L.wv);
        }
        if (!L.bq.empty()) {
            g.add_tensor(p + "attn_q.bias", {q}, DType::F32, L.bq);
            g.add_tensor(p + "attn_k.bias", {kv}, DType::F32, L.bk);
            g.add_tensor(p + "attn_v.bias", {kv}, DType::F32, L.bv);
        }
        if (!L.q_norm.empty()) {
            g.add_tensor(p + "attn_q_norm.weight", {hd}, DType::F32, L.q_norm);
            g.add_tensor(p + "attn_k_norm.weight", {hd}, DType::F32, L.k_norm);
        }
        g.add_tensor(p + "attn_output.weight", shape2(s.dim, q), dtype, L.wo);
        g.add_tensor(p + "ffn_norm.weight", {s.dim}, DType::F32, L.ffn_norm);
        if (s.arch == "phi3") {
            g.add_tensor(p + "ffn_up.weight", shape2(2 * s.ffn_dim, s.dim), dtype, concat({&L.w_gate, &L.w_up}));
        } else {
            g.add_tensor(p + "ffn_gate.weight", shape2(s.ffn_dim, s.dim), dtype, L.w_gate);
            g.add_tensor(p + "ffn_up.weight", shape2(s.ffn_dim, s.dim), dtype, L.w_up);
        }
        g.add_tensor(p + "ffn_down.weight", shape2(s.dim, s.ffn_dim), dtype, L.w_down);
    }
    g.add_tensor("output_norm.weight", {s.dim}, DType::F32, w.out_norm);
    if (!s.tied) g.add_tensor("output.weight", shape2(s.vocab_size, s.dim), dtype, w.output);
    g.write(file);
}

void write_tiny_hf(const std::filesystem::path& dir, const TinyWeights& w, DType dtype, int shards) {
    if (dtype == DType::Q8_0) throw std::invalid_argument("write_tiny_hf: safetensors cannot store Q8_0");
    const TinyModelSpec& s = w.spec;
    const int hd = w.head_dim(), q = s.n_heads * hd, kv = s.n_kv_heads * hd;
    const Architecture& arch = *find_gguf_architecture(s.arch);
    const TinyRopeSpec rope = effective_rope(s);
    std::filesystem::create_directories(dir);

    nlohmann::json cfg = {
        {"architectures", {std::string(arch.hf_class)}},
        {"model_type", std::string(arch.hf_model_type)},
        {"hidden_size", s.dim},
        {"intermediate_size", s.ffn_dim},
        {"num_hidden_layers", s.n_layers},
        {"num_attention_heads", s.n_heads},
        {"num_key_value_heads", s.n_kv_heads},
        {"rms_norm_eps", s.norm_eps},
        {"rope_theta", s.rope_theta},
        {"max_position_embeddings", s.context_length},
        {"vocab_size", s.vocab_size},
        {"tie_word_embeddings", s.tied},
        {"bos_token_id", 1},
        {"eos_token_id", 2},
        {"hidden_act", "silu"},
        {"torch_dtype", dtype == DType::F32 ? "float32" : dtype == DType::F16 ? "float16" : "bfloat16"},
    };
    if (s.head_dim > 0 || s.arch == "qwen3") cfg["head_dim"] = hd;
    cfg["rope_scaling"] = nullptr;
    if (s.sliding_window > 0) cfg["sliding_window"] = s.sliding_window;
    switch (rope.kind) {
        case RopeScalingKind::Linear: cfg["rope_scaling"] = {{"type", "linear"}, {"factor", rope.factor}}; break;
        case RopeScalingKind::Llama3:
            cfg["rope_scaling"] = {{"rope_type", "llama3"},
                                   {"factor", rope.factor},
                                   {"low_freq_factor", rope.low_freq_factor},
                                   {"high_freq_factor", rope.high_freq_factor},
                                   {"original_max_position_embeddings", rope.original_context}};
            break;
        case RopeScalingKind::Yarn:
            cfg["rope_scaling"] = {
                {"type", "yarn"}, {"factor", rope.factor}, {"original_max_position_embeddings", rope.original_context}};
            break;
        case RopeScalingKind::LongRope:
            // Phi-3.5's config.json: the original context is a top-level key.
            cfg["original_max_position_embeddings"] = rope.original_context;
            cfg["rope_scaling"] = {{"type", "longrope"}, {"short_factor", w.rope_short}, {"long_factor", w.rope_long}};
            break;
        default: break;
    }
    std::ofstream(dir / "config.json") << cfg.dump(2);

    std::vector<StTensor> t;
    const auto add = [&](std::string name, std::vector<int64_t> shape, const std::vector<float>& v) {
        t.push_back(StTensor{std::move(name), dtype, std::move(shape), v});
    };
    add("model.embed_tokens.weight", {s.vocab_size, s.dim}, w.tok_embeddings);
    for (int l = 0; l < s.n_layers; ++l) {
        const auto& L = w.layers[l];
        const std::string p = "model.layers." + std::to_string(l) + ".";
        add(p + "input_layernorm.weight", {s.dim}, L.attn_norm);
        if (s.arch == "phi3") {
            add(p + "self_attn.qkv_proj.weight", {q + 2 * kv, s.dim}, concat({&L.wq, &L.wk, &L.wv}));
        } else {
            add(p + "self_attn.q_proj.weight", {q, s.dim}, L.wq);
            add(p + "self_attn.k_proj.weight", {kv, s.dim}, L.wk);
            add(p + "self_attn.v_proj.weight", {kv, s.dim}, L.wv);
        }
        if (!L.bq.empty()) {
            add(p + "self_attn.q_proj.bias", {q}, L.bq);
            add(p + "self_attn.k_proj.bias", {kv}, L.bk);
            add(p + "self_attn.v_proj.bias", {kv}, L.bv);
        }
        if (!L.q_norm.empty()) {
            add(p + "self_attn.q_norm.weight", {hd}, L.q_norm);
            add(p + "self_attn.k_norm.weight", {hd}, L.k_norm);
        }
        add(p + "self_attn.o_proj.weight", {s.dim, q}, L.wo);
        add(p + "post_attention_layernorm.weight", {s.dim}, L.ffn_norm);
        if (s.arch == "phi3") {
            add(p + "mlp.gate_up_proj.weight", {2 * s.ffn_dim, s.dim}, concat({&L.w_gate, &L.w_up}));
        } else {
            add(p + "mlp.gate_proj.weight", {s.ffn_dim, s.dim}, L.w_gate);
            add(p + "mlp.up_proj.weight", {s.ffn_dim, s.dim}, L.w_up);
        }
        add(p + "mlp.down_proj.weight", {s.dim, s.ffn_dim}, L.w_down);
    }
    add("model.norm.weight", {s.dim}, w.out_norm);
    if (!s.tied) add("lm_head.weight", {s.vocab_size, s.dim}, w.output);
    write_safetensors_checkpoint(dir, t, shards);

    if (!s.tokenizer_model.empty()) {
        std::filesystem::copy_file(s.tokenizer_model, dir / "tokenizer.model",
                                   std::filesystem::copy_options::overwrite_existing);
    }
}

}  // namespace snapdoc::testing
