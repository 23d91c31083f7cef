#include "engine/runtime/cpu/cpu_backend.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "engine/common/error.h"
#include "engine/kv/f16_rows.h"
#include "engine/model/model.h"
#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cpu/attention_window_scores.h"
#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/elementwise.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

CpuKvCache::CpuKvCache(KvCacheSpec spec, bool f16) : KvCache(std::move(spec), f16 ? 2 : 4), f16_(f16) {
    const std::size_t segments = spec_.capacity.size();
    try {
        for (auto* rows : {&k_, &v_}) rows->resize(f16_ ? 0 : segments);
        for (auto* rows : {&k16_, &v16_}) rows->resize(f16_ ? segments : 0);
        for (std::size_t s = 0; s < segments; ++s) {
            const auto n = static_cast<std::size_t>(spec_.capacity[s]) * spec_.head_dim;
            if (f16_) {
                k16_[s].resize(n);
                v16_[s].resize(n);
            } else {
                k_[s].resize(n);
                v_[s].resize(n);
            }
        }
    } catch (const std::bad_alloc&) {
        throw Error("out of memory: the KV cache needs " + std::to_string(reserved_bytes() >> 20) + " MiB");
    }
}

std::size_t CpuKvCache::reserved_bytes() const {
    return static_cast<std::size_t>(spec_.total_capacity()) * spec_.head_dim * 2 *
           (f16_ ? sizeof(uint16_t) : sizeof(float));
}

CacheHeadView CpuKvCache::view(int layer, int head) const {
    const int s = spec_.segment(layer, head);
    CacheHeadView h;
    if (f16_) {
        h.k16 = k16_[s].data();
        h.v16 = v16_[s].data();
    } else {
        h.k = k_[s].data();
        h.v = v_[s].data();
    }
    h.positions = positions(layer, head).data();
    h.length = length(layer, head);
    return h;
}

void CpuKvCache::append(int layer, int head, int32_t position, const float* key, const float* value) {
    const int at = length(layer, head), s = spec_.segment(layer, head);
    record_append(layer, head, position);  // throws when full, before anything is written
    const int64_t off = static_cast<int64_t>(at) * spec_.head_dim;
    if (f16_) {
        f32_to_f16_row(key, k16_[s].data() + off, spec_.head_dim);
        f32_to_f16_row(value, v16_[s].data() + off, spec_.head_dim);
    } else {
        std::memcpy(k_[s].data() + off, key, sizeof(float) * spec_.head_dim);
        std::memcpy(v_[s].data() + off, value, sizeof(float) * spec_.head_dim);
    }
}

void CpuKvCache::read(int layer, int head, int first, int n, float* key, float* value) const {
    if (first < 0 || n < 0 || first + n > length(layer, head)) throw Error("read_kv: range out of bounds");
    const int s = spec_.segment(layer, head);
    const int64_t off = static_cast<int64_t>(first) * spec_.head_dim, count = static_cast<int64_t>(n) * spec_.head_dim;
    if (f16_) {
        f16_to_f32_row(k16_[s].data() + off, key, count);
        f16_to_f32_row(v16_[s].data() + off, value, count);
    } else {
        std::memcpy(key, k_[s].data() + off, sizeof(float) * count);
        std::memcpy(value, v_[s].data() + off, sizeof(float) * count);
    }
}

namespace {

class CpuActivations : public Activations {
public:
    CpuActivations(int max_rows, int dim) : max_rows_(max_rows), data(static_cast<std::size_t>(max_rows) * dim) {}
    int max_rows() const override { return max_rows_; }
    int max_rows_;
    std::vector<float> data;
};

// A layer's small vectors in f32: norms, and the optional biases / q-k norms (empty when absent).
struct LayerVectors {
    std::vector<float> attn, ffn, bq, bk, bv, q_norm, k_norm;
};

std::vector<float> to_f32_opt(const TensorView& t) { return t.valid() ? to_f32(t) : std::vector<float>{}; }

int context_size(const ModelConfig& c, const BackendOptions& o) {
    return o.context_length > 0 ? o.context_length : c.context_length;
}

class CpuBackend : public Backend {
public:
    CpuBackend(const Model& model, const BackendOptions& options)
        : model_(model),
          cfg_(model.config),
          pool_(options.threads),
          matmul_(pool_, options.exact_prefill, options.precise_activations),
          rope_(cfg_.head_dim, cfg_.rope_style,
                rope_frequencies(cfg_.head_dim, cfg_.rope_theta, cfg_.rope_scaling, context_size(cfg_, options))),
          chunk_(std::max(1, options.max_chunk_rows)),
          kv_f16_(options.kv_f16) {
        cfg_.validate();
        openblas_set_num_threads(1);  // parallelism comes from our pool (see matmul.cpp)
        for (const auto& l : model.weights.layers)
            vectors_.push_back({to_f32(l.attn_norm), to_f32(l.ffn_norm), to_f32_opt(l.bq), to_f32_opt(l.bk),
                                to_f32_opt(l.bv), to_f32_opt(l.q_norm), to_f32_opt(l.k_norm)});
        out_norm_ = to_f32(model.weights.out_norm);
        const int c = chunk_;
        xn_.resize(static_cast<std::size_t>(c) * cfg_.dim);
        tmp_.resize(static_cast<std::size_t>(c) * cfg_.dim);
        q_.resize(static_cast<std::size_t>(c) * cfg_.q_dim());
        attn_.resize(static_cast<std::size_t>(c) * cfg_.q_dim());
        k_.resize(static_cast<std::size_t>(c) * cfg_.kv_dim());
        v_.resize(static_cast<std::size_t>(c) * cfg_.kv_dim());
        gate_.resize(static_cast<std::size_t>(c) * cfg_.ffn_dim);
        up_.resize(static_cast<std::size_t>(c) * cfg_.ffn_dim);
    }

    std::string name() const override { return "cpu"; }
    const ModelConfig& config() const override { return cfg_; }

    int kv_value_bytes() const override { return kv_f16_ ? 2 : 4; }

    std::unique_ptr<KvCache> create_kv_cache(const KvCacheSpec& spec) override {
        if (spec.n_layers != cfg_.n_layers || spec.head_dim != cfg_.head_dim)
            throw Error("KV cache shape does not match the model");
        if (spec.n_heads <= 0 || cfg_.n_heads % spec.n_heads != 0 || spec.n_heads % cfg_.n_kv_heads != 0 ||
            spec.group != cfg_.n_heads / spec.n_heads)
            throw Error("KV cache heads must be the model's KV heads or query heads");
        return std::make_unique<CpuKvCache>(spec, kv_f16_);
    }

    std::unique_ptr<Activations> create_activations(int max_rows) override {
        try {
            return std::make_unique<CpuActivations>(max_rows, cfg_.dim);
        } catch (const std::bad_alloc&) {
            throw Error("out of memory: hidden states for " + std::to_string(max_rows) + " tokens");
        }
    }

    void embed(const int32_t* tokens, int n, Activations& act, int row0) override {
        auto& a = cast(act);
        check_rows(a, row0, n);
        const TensorView& emb = model_.weights.tok_embeddings;
        for (int i = 0; i < n; ++i) {
            if (tokens[i] < 0 || tokens[i] >= cfg_.vocab_size)
                throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary (0.." +
                            std::to_string(cfg_.vocab_size - 1) + ")");
            dequantize_row(emb.dtype, emb.row_ptr(tokens[i]), row(a, row0 + i), cfg_.dim);
        }
    }

    void run_layer(int layer, Activations& act, int row0, int n, const int32_t* positions, KvCache& kv,
                   float* q_capture) override {
        auto& a = cast(act);
        check_rows(a, row0, n);
        auto* cache = &cast(kv);
        for (int c0 = 0; c0 < n; c0 += chunk_) {
            const int c = std::min(chunk_, n - c0);
            run_chunk(layer, row(a, row0 + c0), c, positions + c0, *cache,
                      q_capture ? q_capture + static_cast<int64_t>(c0) * cfg_.q_dim() : nullptr);
        }
    }

    void logits(const Activations& act, int row_index, float* out) override {
        const auto& a = static_cast<const CpuActivations&>(act);
        if (row_index < 0 || row_index >= a.max_rows()) throw Error("logits: row out of range");
        rms_norm_row(a.data.data() + static_cast<int64_t>(row_index) * cfg_.dim, out_norm_.data(), xn_.data(),
                     cfg_.dim, cfg_.norm_eps);
        matmul_(model_.weights.output, xn_.data(), 1, out, MatMulRole::Output);
    }

    void window_scores(const KvCache& kv, int layer, const float* q_window, const int32_t* q_positions, int n_window,
                       int n_prefix, float* out) override {
        const auto& cache = cast(kv);
        if (cache.spec().n_heads != cfg_.n_kv_heads) throw Error("window scores need an uncompressed cache");
        const int hd = cfg_.head_dim, group = cfg_.group_size();
        // The attention's own tiles: its log-sum-exp per window query, then each key tile's
        // probabilities summed over the window (see attention_window_scores.h).
        heads_.resize(cfg_.n_kv_heads);
        for (int c = 0; c < cfg_.n_kv_heads; ++c) heads_[c] = cache.view(layer, c);
        WindowScoreArgs args;
        args.q = q_window;
        args.q_positions = q_positions;
        args.n_window = n_window;
        args.n_heads = cfg_.n_heads;
        args.head_dim = hd;
        args.group = group;
        args.heads = heads_.data();
        args.scale = 1.0f / std::sqrt(static_cast<float>(hd));
        args.sliding_window = cfg_.sliding_window;
        args.n_prefix = n_prefix;
        args.out = out;
        cpu::window_scores(args, pool_);
    }

    void read_kv(const KvCache& kv, int layer, int head, int first, int n, float* k, float* v) override {
        cast(kv).read(layer, head, first, n, k, v);
    }

    void append_kv(KvCache& kv, int layer, int head, const int32_t* positions, int n, const float* k,
                   const float* v) override {
        auto& cache = cast(kv);
        for (int i = 0; i < n; ++i)
            cache.append(layer, head, positions[i], k + static_cast<int64_t>(i) * cfg_.head_dim,
                         v + static_cast<int64_t>(i) * cfg_.head_dim);
    }

private:
    static const CpuKvCache& cast(const KvCache& kv) {
        auto* c = dynamic_cast<const CpuKvCache*>(&kv);
        if (!c) throw Error("KV cache was not created by the CPU backend");
        return *c;
    }
    static CpuKvCache& cast(KvCache& kv) { return const_cast<CpuKvCache&>(cast(static_cast<const KvCache&>(kv))); }
    static CpuActivations& cast(Activations& act) {
        auto* a = dynamic_cast<CpuActivations*>(&act);
        if (!a) throw Error("activations were not created by the CPU backend");
        return *a;
    }
    float* row(CpuActivations& a, int r) { return a.data.data() + static_cast<int64_t>(r) * cfg_.dim; }
    static void check_rows(const CpuActivations& a, int row0, int n) {
        if (row0 < 0 || n < 0 || row0 + n > a.max_rows()) throw Error("activation rows out of range");
    }

    void run_chunk(int layer, float* h, int n, const int32_t* pos, CpuKvCache& kv, float* q_capture) {
        const LayerWeights& w = model_.weights.layers[layer];
        const LayerVectors& vec = vectors_[layer];
        const int dim = cfg_.dim, hd = cfg_.head_dim, qd = cfg_.q_dim(), kvd = cfg_.kv_dim();

        // Attention block: projections (+ biases), per-head q/k norm, RoPE — the order of HF's
        // Qwen2/Qwen3 attention and llama.cpp's graphs. (Fused qkv tensors arrive as row slices.)
        for (int i = 0; i < n; ++i) rms_norm_row(h + i * dim, vec.attn.data(), xn_.data() + i * dim, dim, cfg_.norm_eps);
        matmul_.same_input({{&w.wq, q_.data()}, {&w.wk, k_.data()}, {&w.wv, v_.data()}}, xn_.data(), n, MatMulRole::AttnQkv);
        if (!vec.bq.empty()) {
            add_bias_rows(q_.data(), vec.bq.data(), n, qd);
            add_bias_rows(k_.data(), vec.bk.data(), n, kvd);
            add_bias_rows(v_.data(), vec.bv.data(), n, kvd);
        }
        if (!vec.q_norm.empty()) {
            for (int64_t r = 0; r < int64_t{n} * cfg_.n_heads; ++r)
                rms_norm_row(q_.data() + r * hd, vec.q_norm.data(), q_.data() + r * hd, hd, cfg_.norm_eps);
            for (int64_t r = 0; r < int64_t{n} * cfg_.n_kv_heads; ++r)
                rms_norm_row(k_.data() + r * hd, vec.k_norm.data(), k_.data() + r * hd, hd, cfg_.norm_eps);
        }
        rope_.prepare(pos, n);  // one cos/sin table per position, shared by q and k and all heads
        for (int i = 0; i < n; ++i) {
            rope_.apply(q_.data() + static_cast<int64_t>(i) * qd, cfg_.n_heads, i);
            rope_.apply(k_.data() + static_cast<int64_t>(i) * kvd, cfg_.n_kv_heads, i);
        }
        if (q_capture) std::memcpy(q_capture, q_.data(), sizeof(float) * static_cast<std::size_t>(n) * qd);

        const KvCacheSpec& spec = kv.spec();
        const int cache_heads_per_kv = spec.n_heads / cfg_.n_kv_heads;  // 1, or the group size in query-head mode
        for (int i = 0; i < n; ++i)
            for (int ch = 0; ch < spec.n_heads; ++ch) {
                const int64_t off = static_cast<int64_t>(i) * kvd + static_cast<int64_t>(ch / cache_heads_per_kv) * hd;
                kv.append(layer, ch, pos[i], k_.data() + off, v_.data() + off);
            }

        heads_.resize(spec.n_heads);
        for (int ch = 0; ch < spec.n_heads; ++ch) heads_[ch] = kv.view(layer, ch);
        AttentionArgs args;
        args.q = q_.data();
        args.q_positions = pos;
        args.n = n;
        args.n_heads = cfg_.n_heads;
        args.head_dim = hd;
        args.group = spec.group;
        args.heads = heads_.data();
        args.scale = 1.0f / std::sqrt(static_cast<float>(hd));
        args.sliding_window = cfg_.sliding_window;
        args.out = attn_.data();
        attention(args, pool_);
        matmul_(w.wo, attn_.data(), n, tmp_.data(), MatMulRole::AttnOut);
        add_inplace(h, tmp_.data(), static_cast<int64_t>(n) * dim);

        // Feed-forward block (SwiGLU).
        for (int i = 0; i < n; ++i) rms_norm_row(h + i * dim, vec.ffn.data(), xn_.data() + i * dim, dim, cfg_.norm_eps);
        matmul_.same_input({{&w.w_gate, gate_.data()}, {&w.w_up, up_.data()}}, xn_.data(), n, MatMulRole::FfnGateUp);
        swiglu(gate_.data(), up_.data(), static_cast<int64_t>(n) * cfg_.ffn_dim);
        matmul_(w.w_down, gate_.data(), n, tmp_.data(), MatMulRole::FfnDown);
        add_inplace(h, tmp_.data(), static_cast<int64_t>(n) * dim);
    }

    const Model& model_;
    ModelConfig cfg_;
    ThreadPool pool_;
    MatMul matmul_;
    Rope rope_;
    int chunk_;
    bool kv_f16_;
    std::vector<LayerVectors> vectors_;
    std::vector<float> out_norm_;
    std::vector<float> xn_, tmp_, q_, attn_, k_, v_, gate_, up_;
    std::vector<CacheHeadView> heads_;
};

}  // namespace
}  // namespace snapdoc::cpu

namespace snapdoc {

std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options) {
    return std::make_unique<cpu::CpuBackend>(model, options);
}

}  // namespace snapdoc
