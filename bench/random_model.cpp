#include "bench/random_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>
#include <tuple>

#include "bench/synthetic_model.h"
#include "engine/common/error.h"
#include "engine/model/dtype.h"
#include "engine/model/rope_scaling.h"

namespace snapdoc::bench {

namespace {

ModelConfig llama_config(const char* name, int layers, int dim, int heads, int kv_heads, int ffn, int vocab, int ctx,
                         float theta) {
    ModelConfig c = llama_shape(layers, dim, heads, kv_heads, ffn, vocab, ctx, theta);
    c.name = name;
    c.bos_id = 1;
    c.eos_id = 2;
    c.end_of_generation_ids = {2};
    return c;
}

// Llama 3.1's rope scaling (factor 8 from an 8192-token original context), as its GGUF carries it.
ModelConfig with_llama31_rope(ModelConfig c) {
    c.rope_scaling.kind = RopeScalingKind::Llama3;
    c.rope_scaling.factor = 8.0f;
    c.rope_scaling.freq_factors = llama3_frequency_factors(c.head_dim, c.rope_theta, 8.0, 1.0, 4.0, 8192);
    return c;
}

RandomModelShape shape(std::string name, std::string description, ModelConfig c, WeightMix mix) {
    c.weight_dtype = mix == WeightMix::BF16 ? DType::BF16 : DType::Q4_K;
    return {std::move(name), std::move(description), std::move(c), mix};
}

// A cheap deterministic generator: the weights need realistic magnitudes, not quality.
struct XorShift {
    uint64_t s;
    float uniform() {  // in [-1, 1)
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return static_cast<float>(static_cast<int64_t>(s >> 40) - (int64_t{1} << 23)) / float(1 << 23);
    }
};

// Row r of a matrix with `cols` inputs: uniform values with std ≈ 1/sqrt(cols), as a trained
// projection's scale (so hidden states keep sane magnitudes through the layers).
void random_row(uint64_t seed, int64_t r, std::vector<float>& out) {
    XorShift g{(seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(r) * 0xBF58476D1CE4E5B9ull)) | 1};
    const float scale = 1.7f / std::sqrt(static_cast<float>(out.size()));
    for (float& x : out) x = g.uniform() * scale;
}

// Runs fn(first, last) over [0, rows) in one slice per core.
template <typename F>
void parallel_rows(int64_t rows, F&& fn) {
    const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 64);
    const int64_t per = (rows + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (int64_t first = 0; first < rows; first += per) pool.emplace_back(fn, first, std::min(rows, first + per));
    for (auto& t : pool) t.join();
}

// llama.cpp's Q4_K_M gives attn_v and ffn_down Q6_K in the first and last eighth of the layers and
// in every third layer between (use_more_bits).
bool more_bits(int layer, int n_layers) {
    return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
}

class TensorMaker {
public:
    explicit TensorMaker(Model& model) : model_(model) {}

    // One tensor per (role, dtype), made at the first request and shared by every layer after.
    TensorView get(const std::string& role, const std::string& name, int64_t rows, int64_t cols, DType t) {
        const auto key = std::make_tuple(role, t);
        auto it = made_.find(key);
        if (it == made_.end()) it = made_.emplace(key, make(rows, cols, t)).first;
        TensorView v = it->second;
        v.name = name;
        return v;
    }

private:
    TensorView make(int64_t rows, int64_t cols, DType t) {
        if (!dtype_row_fits(t, cols))
            throw Error(std::string(dtype_name(t)) + " needs rows of whole blocks; " + std::to_string(cols) + " columns do not fit");
        const std::size_t row_bytes = dtype_row_bytes(t, cols);
        auto buf = std::make_shared<std::vector<uint8_t>>(row_bytes * static_cast<std::size_t>(rows));
        const uint64_t seed = ++seed_;
        if (rows == 1 && t == DType::F32) {  // norm weights: ones
            std::vector<float> ones(static_cast<std::size_t>(cols), 1.0f);
            std::memcpy(buf->data(), ones.data(), row_bytes);
        } else if (!dtype_is_quantized(t)) {
            parallel_rows(rows, [&](int64_t first, int64_t last) {
                std::vector<float> row(static_cast<std::size_t>(cols));
                for (int64_t r = first; r < last; ++r) {
                    random_row(seed, r, row);
                    quantize_row(t, row.data(), buf->data() + static_cast<std::size_t>(r) * row_bytes, cols);
                }
            });
        } else {
            // Quantizing billions of values takes minutes; a pool of quantized random rows, copied
            // in a scrambled order, gives valid blocks of the right magnitudes at memcpy speed.
            constexpr int kPool = 61;
            std::vector<uint8_t> pool(row_bytes * kPool);
            std::vector<float> row(static_cast<std::size_t>(cols));
            for (int p = 0; p < kPool; ++p) {
                random_row(seed, p, row);
                quantize_row(t, row.data(), pool.data() + static_cast<std::size_t>(p) * row_bytes, cols);
            }
            parallel_rows(rows, [&](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r)
                    std::memcpy(buf->data() + static_cast<std::size_t>(r) * row_bytes,
                                pool.data() + static_cast<std::size_t>((r * 17 + seed) % kPool) * row_bytes, row_bytes);
            });
        }
        TensorView v;
        v.dtype = t;
        v.shape = rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{rows, cols};
        v.data = buf->data();
        v.nbytes = buf->size();
        model_.owned_buffers.push_back(std::move(buf));
        return v;
    }

    Model& model_;
    uint64_t seed_ = 0;
    std::map<std::tuple<std::string, DType>, TensorView> made_;
};

}  // namespace

const std::vector<RandomModelShape>& random_model_shapes() {
    static const std::vector<RandomModelShape> shapes = {
        shape("mistral-7b-bf16", "Mistral-7B v0.2 shape: 32 layers, dim 4096, 32/8 heads, FFN 14336, vocab 32000, theta 1e6; BF16",
              llama_config("random mistral-7b", 32, 4096, 32, 8, 14336, 32000, 32768, 1e6f), WeightMix::BF16),
        shape("llama3.1-8b-q4km",
              "Llama-3.1-8B shape: 32 layers, dim 4096, 32/8 heads, FFN 14336, vocab 128256, theta 5e5 + llama3 rope "
              "scaling x8; Q4_K_M type mix (Q4_K, Q6_K head and attn_v/ffn_down of 1/8 + 1/8 + every third layer)",
              with_llama31_rope(llama_config("random llama3.1-8b", 32, 4096, 32, 8, 14336, 128256, 131072, 5e5f)),
              WeightMix::Q4_K_M),
        shape("tiny-bf16", "2 layers, dim 64, 4/2 heads, FFN 172, vocab 512; BF16 (smoke runs)",
              llama_config("random tiny", 2, 64, 4, 2, 172, 512, 8192, 1e6f), WeightMix::BF16),
        shape("tiny-q4km", "2 layers, dim 256, 4/2 heads, FFN 512, vocab 512, llama3 rope scaling; Q4_K_M mix (smoke runs)",
              with_llama31_rope(llama_config("random tiny", 2, 256, 4, 2, 512, 512, 8192, 5e5f)), WeightMix::Q4_K_M),
    };
    return shapes;
}

const RandomModelShape& find_random_model_shape(const std::string& name) {
    std::string known;
    for (const auto& s : random_model_shapes()) {
        if (s.name == name) return s;
        if (!known.empty()) known += ", ";
        known += s.name;
    }
    throw Error("unknown shape '" + name + "' (known: " + known + ")");
}

std::unique_ptr<Model> make_random_model(const RandomModelShape& shape, int layers) {
    auto model = std::make_unique<Model>();
    ModelConfig& c = model->config;
    c = shape.config;
    if (layers > 0) c.n_layers = layers;
    c.validate();
    model->path = "(in memory: " + shape.name + ")";
    const bool q = shape.mix == WeightMix::Q4_K_M;
    const DType main = q ? DType::Q4_K : DType::BF16;
    TensorMaker make(*model);
    ModelWeights& w = model->weights;
    w.tok_embeddings = make.get("token_embd", "token_embd.weight", c.vocab_size, c.dim, main);
    w.output = make.get("output", "output.weight", c.vocab_size, c.dim, q ? DType::Q6_K : main);
    w.out_norm = make.get("norm", "output_norm.weight", 1, c.dim, DType::F32);
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        const DType more = q && more_bits(l, c.n_layers) ? DType::Q6_K : main;
        LayerWeights lw;
        lw.attn_norm = make.get("norm", p + "attn_norm.weight", 1, c.dim, DType::F32);
        lw.ffn_norm = make.get("norm", p + "ffn_norm.weight", 1, c.dim, DType::F32);
        lw.wq = make.get("attn_q", p + "attn_q.weight", c.q_dim(), c.dim, main);
        lw.wk = make.get("attn_k", p + "attn_k.weight", c.kv_dim(), c.dim, main);
        lw.wv = make.get("attn_v", p + "attn_v.weight", c.kv_dim(), c.dim, more);
        lw.wo = make.get("attn_output", p + "attn_output.weight", c.dim, c.q_dim(), main);
        lw.w_gate = make.get("ffn_gate", p + "ffn_gate.weight", c.ffn_dim, c.dim, main);
        lw.w_up = make.get("ffn_up", p + "ffn_up.weight", c.ffn_dim, c.dim, main);
        lw.w_down = make.get("ffn_down", p + "ffn_down.weight", c.dim, c.ffn_dim, more);
        w.layers.push_back(std::move(lw));
    }
    return model;
}

std::string random_model_type_mix(const Model& model) {
    const ModelWeights& w = model.weights;
    std::map<DType, int> count;
    for (const TensorView* v : {&w.tok_embeddings, &w.out_norm, &w.output}) ++count[v->dtype];
    for (const LayerWeights& l : w.layers)
        for (const TensorView* v : l.views())
            if (v->valid()) ++count[v->dtype];
    std::string out;
    for (const auto& [t, n] : count) {
        if (!out.empty()) out += ' ';
        out += dtype_name(t);
        out += 'x';
        out += std::to_string(n);
    }
    return out;
}

int64_t random_model_weight_bytes(const Model& model) {
    const ModelWeights& w = model.weights;
    int64_t n = static_cast<int64_t>(w.tok_embeddings.nbytes + w.out_norm.nbytes);
    if (w.output.data != w.tok_embeddings.data) n += static_cast<int64_t>(w.output.nbytes);
    for (const LayerWeights& l : w.layers)
        for (const TensorView* v : l.views())
            if (v->valid()) n += static_cast<int64_t>(v->nbytes);
    return n;
}

}  // namespace snapdoc::bench
