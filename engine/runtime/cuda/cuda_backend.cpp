// The CUDA backend: one stream, one cuBLAS handle, weights resident on the device. Per layer and
// chunk of rows: RMSNorm -> fused QKV GEMM -> RoPE (q and k in one launch) -> append K/V to the
// device cache -> tiled attention -> output GEMM (+ residual, beta = 1) -> RMSNorm -> fused
// gate/up GEMM -> SwiGLU -> down GEMM (+ residual). Everything stays on the device; only logits,
// captured queries, window scores and read_kv results travel to the host.
#include "engine/runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/session/sampler.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/cuda_decode_step.h"
#include "engine/runtime/cuda/cuda_fault_injection.h"
#include "engine/runtime/cuda/cuda_full_kv_store.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "engine/runtime/cuda/cuda_snapkv_select.h"
#include "engine/runtime/cuda/device_matrix.h"
#include "engine/runtime/cuda/device_weights.h"
#include "engine/runtime/cuda/gemm.h"
#include "kernels/attention.h"
#include "kernels/convert.h"
#include "kernels/elementwise.h"
#include "kernels/embedding.h"
#include "kernels/flash_prefill.h"
#include "kernels/flash_window_scores.h"
#include "kernels/kv_cache.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "kernels/window_scores.h"

namespace snapdoc {

int cuda_device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

std::string cuda_unavailable_reason() {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return std::string("CUDA reports ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    }
    return n == 0 ? "no CUDA device is visible" : "";
}

std::string cuda_device_description(int device) {
    cudaDeviceProp p{};
    cuda::check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f GiB", static_cast<double>(p.totalGlobalMem) / (1 << 30));
    return std::string(p.name) + ", " + std::to_string(p.multiProcessorCount) + " SMs, " + gib + ", compute " +
           std::to_string(p.major) + "." + std::to_string(p.minor);
}

DType cuda_weight_dtype(const Model& model, const CudaBackendOptions& options) {
    if (options.weight_dtype) {
        if (dtype_is_quantized(*options.weight_dtype))
            throw Error(std::string("CUDA weights can be f32, f16 or bf16, not ") +
                        std::string(dtype_name(*options.weight_dtype)));
        return *options.weight_dtype;
    }
    const DType t = model.config.weight_dtype;
    if (t == DType::F32) return model.weight_bytes() <= options.keep_f32_max_bytes ? DType::F32 : DType::BF16;
    if (t == DType::BF16) return DType::BF16;
    // F16 and every block type: block values (an f16 scale times small integers) round to f16 with
    // less error than to bf16. Block tensors stay in their blocks on the device; F16 is the dtype of
    // their dequantized prefill tiles (and of the whole model when a dtype is forced).
    return DType::F16;
}

namespace cuda {
namespace {

using kernels::Dt;

class CudaActivations : public Activations {
public:
    CudaActivations(int max_rows, int dim)
        : max_rows_(max_rows),
          h(static_cast<std::size_t>(max_rows) * dim * sizeof(float),
            "hidden states for " + std::to_string(max_rows) + " tokens") {}
    int max_rows() const override { return max_rows_; }
    int max_rows_;
    DeviceBuffer h;  // [max_rows, dim] f32
};

// Refuses a model using a part the kernels lack up front, with one message naming it, rather than
// computing wrong logits.
void refuse_unsupported_features(const Model& model) {
    const std::string feature = cuda_unsupported_feature(model);
    if (!feature.empty()) {
        throw Error("the CUDA backend does not support " + feature + " yet (model '" + model.config.name +
                    "', architecture " + model.config.architecture + "); run it with --device cpu");
    }
}

// Sets the backend's device for the calling thread (the UI runs the engine on a worker thread).
struct DeviceScope {
    explicit DeviceScope(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }
};

class CudaBackend : public Backend {
public:
    CudaBackend(const Model& model, const BackendOptions& options, const CudaBackendOptions& cuda_options)
        : model_(model),
          cfg_(model.config),
          device_(cuda_options.device),
          chunk_(std::max(1, options.max_chunk_rows)),
          keep_full_kv_on_device_(cuda_options.keep_full_kv_on_device) {
        cfg_.validate();
        refuse_unsupported_features(model);
        if (cuda_device_count() <= device_)
            throw Error("no CUDA device " + std::to_string(device_) + ": " + cuda_unavailable_reason());
        if (cfg_.head_dim > kernels::kMaxHeadDim || cfg_.head_dim % 2 != 0)
            throw Error("the CUDA backend supports even head_dim up to " + std::to_string(kernels::kMaxHeadDim) +
                        " (model has " + std::to_string(cfg_.head_dim) + ")");
        if (cfg_.n_heads > kernels::kMaxCacheHeads)
            throw Error("the CUDA backend supports up to " + std::to_string(kernels::kMaxCacheHeads) + " query heads");
        DeviceScope scope(device_);
        check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_), "cudaDeviceGetAttribute");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        gemm_ = std::make_unique<Gemm>(stream_);

        dt_ = to_kernel_dt(cuda_weight_dtype(model, cuda_options));
        keep_blocks_ = !cuda_options.weight_dtype;  // a forced dtype widens block tensors too
        block_weights_ = device_weights_have_blocks(model, keep_blocks_);
        // Predict everything this constructor allocates, so a model that cannot fit fails before
        // gigabytes are copied, with the numbers.
        const int64_t weights = device_weight_bytes(model, dt_, keep_blocks_);
        require_free(weights + scratch_bytes(), "the model (" + mib(weights) + " of " +
                                                    device_weight_formats(model, dt_, keep_blocks_) + " weights, " +
                                                    mib(scratch_bytes()) + " scratch for " + std::to_string(chunk_) +
                                                    "-row chunks)");
        w_ = upload_weights(model, dt_, stream_, keep_blocks_);
        matmul_ = std::make_unique<MatMul>(*gemm_, stream_);
        context_length_ = options.context_length;
        allocate_scratch();
        upload_rope_frequencies(options);
    }

    ~CudaBackend() override {
        if (stream_) {
            cudaStreamSynchronize(stream_);
            decode_step_.reset();
            matmul_.reset();
            gemm_.reset();
            cudaStreamDestroy(stream_);
        }
    }

    std::string name() const override { return "cuda"; }
    const ModelConfig& config() const override { return cfg_; }

    std::unique_ptr<KvCache> create_kv_cache(const KvCacheSpec& spec) override {
        if (spec.n_layers != cfg_.n_layers || spec.head_dim != cfg_.head_dim)
            throw Error("KV cache shape does not match the model");
        if (spec.n_heads <= 0 || cfg_.n_heads % spec.n_heads != 0 || spec.n_heads % cfg_.n_kv_heads != 0 ||
            spec.group != cfg_.n_heads / spec.n_heads)
            throw Error("KV cache heads must be the model's KV heads or query heads");
        DeviceScope scope(device_);
        return std::make_unique<CudaKvCache>(spec);
    }

    std::unique_ptr<Activations> create_activations(int max_rows) override {
        DeviceScope scope(device_);
        const int64_t bytes = int64_t{max_rows} * cfg_.dim * 4;
        require_free(bytes, "hidden states for " + std::to_string(max_rows) + " tokens");
        return std::make_unique<CudaActivations>(max_rows, cfg_.dim);
    }

    void embed(const int32_t* tokens, int n, Activations& act, int row0) override {
        DeviceScope scope(device_);
        auto& a = cast(act);
        check_rows(a, row0, n);
        for (int i = 0; i < n; ++i)
            if (tokens[i] < 0 || tokens[i] >= cfg_.vocab_size)
                throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary (0.." +
                            std::to_string(cfg_.vocab_size - 1) + ")");
        tokens_.ensure(static_cast<std::size_t>(n) * 4, "token ids");
        check(cudaMemcpyAsync(tokens_.get(), tokens, static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice, stream_),
              "token upload");
        embed_rows(w_.tok_embeddings, tokens_.as<int32_t>(), n, row(a, row0), stream_);
    }

    void run_layer(int layer, Activations& act, int row0, int n, const int32_t* positions, KvCache& kv,
                   float* q_capture) override {
        DeviceScope scope(device_);
        auto& a = cast(act);
        check_rows(a, row0, n);
        if (layer < 0 || layer >= cfg_.n_layers) throw Error("run_layer: layer out of range");
        auto& cache = cast(kv);
        for (int c0 = 0; c0 < n; c0 += chunk_) {
            const int c = std::min(chunk_, n - c0);
            run_chunk(layer, row(a, row0 + c0), c, positions + c0, cache,
                      q_capture ? q_capture + static_cast<int64_t>(c0) * cfg_.q_dim() : nullptr);
        }
        // A no-op outside the emulated tests (cuda_fault_injection.h).
        fault::after_layer(layer, row(a, row0), static_cast<std::size_t>(n) * cfg_.dim * sizeof(float), stream_);
    }

    void logits(const Activations& act, int row_index, float* out) override {
        DeviceScope scope(device_);
        const auto& a = cast(act);
        if (row_index < 0 || row_index >= a.max_rows()) throw Error("logits: row out of range");
        const Dt xdt = input_dt(1);
        check(kernels::rms_norm(row(a, row_index), w_.out_norm.as<float>(), xin_.get(), xdt, 1, cfg_.dim, cfg_.norm_eps,
                                stream_),
              "rms_norm kernel");
        (*matmul_)(w_.output(), xin_.get(), xdt, 1, logits_.as<float>());
        check(cudaMemcpyAsync(out, logits_.get(), static_cast<std::size_t>(cfg_.vocab_size) * 4, cudaMemcpyDeviceToHost,
                              stream_),
              "logits download");
        check(cudaStreamSynchronize(stream_), "logits");
    }

    // The whole step as one CUDA graph with device sampling (cuda_decode_step.h), one host sync per
    // token. The default composition serves what the graph does not: logits wanted on the host,
    // a repetition penalty (host-side history), a row past a sliding window (masked by the
    // prefill kernel only).
    int32_t decode_next(int32_t token, int32_t pos, KvCache& kv, Activations& act, Sampler& sampler,
                        std::span<const int32_t> history, std::span<float> logits_out) override {
        const SamplingParams& p = sampler.params();
        const bool penalty = p.repetition_penalty != 1.0f && p.repetition_window > 0;
        const bool windowed = cfg_.sliding_window > 0 && pos >= cfg_.sliding_window;
        if (!logits_out.empty() || penalty || windowed)
            return Backend::decode_next(token, pos, kv, act, sampler, history, logits_out);
        DeviceScope scope(device_);
        if (!decode_step_) {
            DecodeStepContext ctx;
            ctx.cfg = &cfg_;
            ctx.weights = &w_;
            ctx.matmul = matmul_.get();
            ctx.stream = stream_;
            ctx.input_dt = input_dt(1);
            ctx.sm_count = sm_count_;
            ctx.context_length = context_length_;
            decode_step_ = std::make_unique<CudaDecodeStep>(ctx);
        }
        kernels::DeviceSamplingParams sp;  // greedy: the other fields stay 0 (one graph for all)
        if (p.temperature > 0.0f) {
            sp.temperature = p.temperature;
            sp.top_k = p.top_k;
            sp.top_p = p.top_p;
            sp.min_p = p.min_p;
            sp.seed = p.seed;
        }
        return decode_step_->run(token, pos, cast(kv), sp);
    }

    void window_scores(const KvCache& kv, int layer, const float* q_window, const int32_t* q_positions, int n_window,
                       int n_prefix, float* out) override {
        DeviceScope scope(device_);
        const auto& cache = cast(kv);
        if (cache.spec().n_heads != cfg_.n_kv_heads) throw Error("window scores need an uncompressed cache");
        if (n_prefix <= 0) return;
        const int qd = cfg_.q_dim(), H = cfg_.n_heads;
        std::fill(out, out + static_cast<int64_t>(H) * n_prefix, 0.0f);
        if (n_window <= 0) return;
        win_q_.ensure(static_cast<std::size_t>(n_window) * qd * 4, "window queries");
        win_pos_.ensure(static_cast<std::size_t>(n_window) * 4, "window positions");
        scores_.ensure(static_cast<std::size_t>(H) * n_prefix * 4, "window scores");
        check(cudaMemcpyAsync(win_q_.get(), q_window, static_cast<std::size_t>(n_window) * qd * 4, cudaMemcpyHostToDevice,
                              stream_),
              "window query upload");
        check(cudaMemcpyAsync(win_pos_.get(), q_positions, static_cast<std::size_t>(n_window) * 4, cudaMemcpyHostToDevice,
                              stream_),
              "window position upload");
        // Tensor cores, two passes (kernels/flash_window_scores.h): each window row's log-sum-exp
        // over every key it sees, then Σ over the window of exp(score - lse) per prefix key.
        kernels::FlashWindowScoreArgs w;
        w.q = win_q_.as<float>();
        w.q_stride = qd;
        w.q_pos = win_pos_.as<int32_t>();
        w.n_window = n_window;
        w.n_heads = H;
        w.scale = scale();
        w.sliding_window = cfg_.sliding_window;
        w.cache = cache.layer_view(layer);
        w.max_len = cache.max_length(layer);
        w.n_prefix = n_prefix;
        w.out = scores_.as<float>();
        w.sm_count = sm_count_;
        const int64_t floats = kernels::flash_window_scores_scratch_floats(n_window, H, w.cache.n_heads, w.max_len, sm_count_);
        win_lse_.ensure(static_cast<std::size_t>(floats) * 4, "window score statistics");
        w.scratch = win_lse_.as<float>();
        check(kernels::flash_window_scores(w, stream_), "flash_window_scores kernel");
        check(cudaMemcpyAsync(out, scores_.get(), static_cast<std::size_t>(H) * n_prefix * 4, cudaMemcpyDeviceToHost, stream_),
              "window score download");
        check(cudaStreamSynchronize(stream_), "window scores");
    }

    void read_kv(const KvCache& kv, int layer, int head, int first, int n, float* k, float* v) override {
        DeviceScope scope(device_);
        const auto& cache = cast(kv);
        if (first < 0 || n < 0 || first + n > cache.length(layer, head)) throw Error("read_kv: range out of bounds");
        if (n == 0) return;
        const int64_t count = int64_t{n} * cfg_.head_dim;
        const int64_t at = (cache.offset(layer, head) + first) * cfg_.head_dim;
        stage_.ensure(static_cast<std::size_t>(count) * 2 * 4, "read_kv staging");
        float* sk = stage_.as<float>();
        float* sv = sk + count;
        check(kernels::convert(cache.k() + at, Dt::F16, sk, Dt::F32, count, stream_), "read_kv conversion");
        check(kernels::convert(cache.v() + at, Dt::F16, sv, Dt::F32, count, stream_), "read_kv conversion");
        check(cudaMemcpyAsync(k, sk, static_cast<std::size_t>(count) * 4, cudaMemcpyDeviceToHost, stream_), "read_kv copy");
        check(cudaMemcpyAsync(v, sv, static_cast<std::size_t>(count) * 4, cudaMemcpyDeviceToHost, stream_), "read_kv copy");
        check(cudaStreamSynchronize(stream_), "read_kv");
    }

    void append_kv(KvCache& kv, int layer, int head, const int32_t* positions, int n, const float* k,
                   const float* v) override {
        DeviceScope scope(device_);
        auto& cache = cast(kv);
        cache.check_append(layer, head, positions, n);
        if (n == 0) return;
        const int64_t count = int64_t{n} * cfg_.head_dim;
        const int64_t entry = cache.offset(layer, head) + cache.length(layer, head);
        stage_.ensure(static_cast<std::size_t>(count) * 2 * 4, "append_kv staging");
        float* sk = stage_.as<float>();
        float* sv = sk + count;
        check(cudaMemcpyAsync(sk, k, static_cast<std::size_t>(count) * 4, cudaMemcpyHostToDevice, stream_), "append_kv copy");
        check(cudaMemcpyAsync(sv, v, static_cast<std::size_t>(count) * 4, cudaMemcpyHostToDevice, stream_), "append_kv copy");
        check(cudaMemcpyAsync(cache.pos() + entry, positions, static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice,
                              stream_),
              "append_kv copy");
        check(kernels::convert(sk, Dt::F32, cache.k() + entry * cfg_.head_dim, Dt::F16, count, stream_), "append_kv conversion");
        check(kernels::convert(sv, Dt::F32, cache.v() + entry * cfg_.head_dim, Dt::F16, count, stream_), "append_kv conversion");
        // The staging buffer may be reused by the next call before these kernels ran otherwise.
        check(cudaStreamSynchronize(stream_), "append_kv");
        cache.commit_append(layer, head, positions, n);
    }

    // The document's full K/V on the GPU when it fits, else staged through pinned host memory
    // (engine/runtime/cuda/cuda_full_kv_store.h).
    std::unique_ptr<BackendFullKv> attach_full_kv(FullKvStore& host) override {
        DeviceScope scope(device_);
        return std::make_unique<CudaFullKvStore>(host, cfg_, device_, stream_, keep_full_kv_on_device_);
    }

    // Pooling and top-k on the device (engine/runtime/cuda/cuda_snapkv_select.h); same positions.
    void snapkv_select_layer(const WindowScores& scores, int layer, Selection& selection) override {
        DeviceScope scope(device_);
        if (!select_) select_ = std::make_unique<CudaSnapKvSelect>(stream_);
        select_->select_layer(scores, layer, selection);
    }

private:
    static const CudaKvCache& cast(const KvCache& kv) {
        auto* c = dynamic_cast<const CudaKvCache*>(&kv);
        if (!c) throw Error("KV cache was not created by the CUDA backend");
        return *c;
    }
    static CudaKvCache& cast(KvCache& kv) { return const_cast<CudaKvCache&>(cast(static_cast<const KvCache&>(kv))); }
    static const CudaActivations& cast(const Activations& act) {
        auto* a = dynamic_cast<const CudaActivations*>(&act);
        if (!a) throw Error("activations were not created by the CUDA backend");
        return *a;
    }
    static CudaActivations& cast(Activations& act) {
        return const_cast<CudaActivations&>(cast(static_cast<const Activations&>(act)));
    }
    float* row(const CudaActivations& a, int r) const { return a.h.as<float>() + static_cast<int64_t>(r) * cfg_.dim; }
    static void check_rows(const CudaActivations& a, int row0, int n) {
        if (row0 < 0 || n < 0 || row0 + n > a.max_rows()) throw Error("activation rows out of range");
    }
    float scale() const { return 1.0f / std::sqrt(static_cast<float>(cfg_.head_dim)); }
    int qkv_stride() const { return cfg_.q_dim() + 2 * cfg_.kv_dim(); }
    int xin_width() const { return std::max({cfg_.dim, cfg_.q_dim(), cfg_.ffn_dim}); }

    // Matrix-product inputs: f32 for the block GEMV (a few rows), the weight dtype otherwise.
    Dt input_dt(int n) const { return block_weights_ && n <= kernels::kGemvMaxRows ? Dt::F32 : dt_; }
    int64_t xin_bytes() const {
        const int64_t c = chunk_;
        const int64_t gemv_rows = block_weights_ ? std::min<int64_t>(c, kernels::kGemvMaxRows) : 0;
        return std::max(c * static_cast<int64_t>(kernels::dt_size(dt_)), gemv_rows * 4) * xin_width();
    }
    // Per-chunk scratch: matrix-product inputs, f32 GEMM outputs, positions, logits, and for block
    // weights the dequantized tile (MatMul).
    int64_t scratch_bytes() const {
        const int64_t c = chunk_;
        return xin_bytes() + c * qkv_stride() * 4 + c * cfg_.q_dim() * 4 + c * 2 * cfg_.ffn_dim * 4 + c * 4 +
               int64_t{cfg_.vocab_size} * 4 +
               (block_weights_ ? MatMul::scratch_bytes(xin_width(), kernels::kGemvMaxRows, dt_) : 0);
    }
    void allocate_scratch() {
        const std::size_t c = static_cast<std::size_t>(chunk_);
        xin_.ensure(static_cast<std::size_t>(xin_bytes()), "chunk scratch");
        qkv_.ensure(c * qkv_stride() * 4, "chunk scratch");
        attn_.ensure(c * cfg_.q_dim() * 4, "chunk scratch");
        gate_up_.ensure(c * 2 * cfg_.ffn_dim * 4, "chunk scratch");
        pos_.ensure(c * 4, "chunk scratch");
        logits_.ensure(static_cast<std::size_t>(cfg_.vocab_size) * 4, "logits");
        if (block_weights_) matmul_->reserve(xin_width(), kernels::kGemvMaxRows, dt_);
    }

    // Every rope scaling kind (linear, llama3, YaRN, LongRoPE at this context size) as the CPU
    // backend's one table of per-pair frequencies and attention factor (rope_scaling.h).
    void upload_rope_frequencies(const BackendOptions& options) {
        const int context = options.context_length > 0 ? options.context_length : cfg_.context_length;
        const RopeFrequencies f = rope_frequencies(cfg_.head_dim, cfg_.rope_theta, cfg_.rope_scaling, context);
        rope_attention_factor_ = static_cast<float>(f.attention_factor);
        const std::size_t bytes = f.inv_freq.size() * sizeof(double);
        rope_freq_.ensure(bytes, "rope frequencies");
        check(cudaMemcpy(rope_freq_.get(), f.inv_freq.data(), bytes, cudaMemcpyHostToDevice), "rope frequency upload");
    }

    // The fields the tensor-core and the CUDA-core attention kernels' arguments share.
    template <typename Args>
    Args attention_args(const float* q, int64_t q_stride, const int32_t* q_pos, int n, const kernels::KvLayerView& view,
                        float* out, int64_t out_stride) const {
        Args a;
        a.q = q;
        a.q_stride = q_stride;
        a.q_pos = q_pos;
        a.n = n;
        a.n_heads = cfg_.n_heads;
        a.scale = scale();
        a.cache = view;
        a.out = out;
        a.out_stride = out_stride;
        return a;
    }

    void run_flash_attention(const float* q, int64_t q_stride, const int32_t* q_pos, int n,
                             const kernels::KvLayerView& view, float* out, int64_t out_stride) {
        auto a = attention_args<kernels::FlashAttentionArgs>(q, q_stride, q_pos, n, view, out, out_stride);
        a.sliding_window = cfg_.sliding_window;
        check(kernels::flash_attention(a, stream_), "flash_attention kernel");
    }

    void run_attention(const float* q, int64_t q_stride, const int32_t* q_pos, int n, const kernels::KvLayerView& view,
                       int max_len, float* out, int64_t out_stride, float* lse) {
        auto a = attention_args<kernels::AttentionArgs>(q, q_stride, q_pos, n, view, out, out_stride);
        a.max_len = max_len;
        a.lse = lse;
        a.sm_count = sm_count_;
        const int64_t floats =
            kernels::attention_scratch_floats(n, cfg_.n_heads, view.n_heads, view.head_dim, max_len, sm_count_);
        if (floats > 0) {
            split_.ensure(static_cast<std::size_t>(floats) * 4, "split-KV attention scratch");
            a.scratch = split_.as<float>();
        }
        check(kernels::attention(a, stream_), "attention kernel");
    }

    void run_chunk(int layer, float* h, int n, const int32_t* positions, CudaKvCache& kv, float* q_capture) {
        const DeviceLayer& w = w_.layers[layer];
        const int dim = cfg_.dim, qd = cfg_.q_dim(), kvd = cfg_.kv_dim(), stride = qkv_stride();
        const KvCacheSpec& spec = kv.spec();
        // Validate the append for every segment before anything is written.
        for (int ch = 0; ch < spec.n_heads; ++ch) kv.check_append(layer, ch, positions, n);
        check(cudaMemcpyAsync(pos_.get(), positions, static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice, stream_),
              "position upload");
        const auto* pos = pos_.as<int32_t>();

        // Attention block.
        const Dt xdt = input_dt(n);
        check(kernels::rms_norm(h, w.attn_norm.as<float>(), xin_.get(), xdt, n, dim, cfg_.norm_eps, stream_), "rms_norm kernel");
        (*matmul_)(w.wqkv, xin_.get(), xdt, n, qkv_.as<float>());
        const auto conv = cfg_.rope_style == RopeStyle::AdjacentPairs ? kernels::RopeConvention::AdjacentPairs
                                                                       : kernels::RopeConvention::RotateHalf;
        check(kernels::rope_with_frequencies(qkv_.as<float>(), stride, n, cfg_.n_heads + cfg_.n_kv_heads, cfg_.head_dim,
                                             pos, rope_freq_.as<double>(), rope_attention_factor_, conv, stream_),
              "rope kernel");
        if (q_capture)  // pageable destination: returns once the copy is done
            check(cudaMemcpy2DAsync(q_capture, static_cast<std::size_t>(qd) * 4, qkv_.get(), static_cast<std::size_t>(stride) * 4,
                                    static_cast<std::size_t>(qd) * 4, n, cudaMemcpyDeviceToHost, stream_),
                  "query capture");
        check(kernels::kv_append_rows(kv.layer_view(layer), qkv_.as<float>(), stride, qd, qd + kvd, cfg_.n_kv_heads, pos, n,
                                      stream_),
              "kv_append kernel");
        for (int ch = 0; ch < spec.n_heads; ++ch) kv.commit_append(layer, ch, positions, n);

        // With f32 inputs the attention output is already the o-projection's input type.
        float* attn_out = xdt == Dt::F32 ? xin_.as<float>() : attn_.as<float>();
        // Prefill rows on tensor cores (kernels/flash_prefill.h). A decode row keeps the split-KV
        // CUDA-core kernel, except past a sliding window, which only the flash kernel masks (the
        // window bounds the keys such a row sees, so it needs no split).
        const bool windowed = cfg_.sliding_window > 0 && positions[n - 1] >= cfg_.sliding_window;
        if (n > 1 || windowed) run_flash_attention(qkv_.as<float>(), stride, pos, n, kv.layer_view(layer), attn_out, qd);
        else run_attention(qkv_.as<float>(), stride, pos, n, kv.layer_view(layer), kv.max_length(layer), attn_out, qd, nullptr);
        if (xdt != Dt::F32)
            check(kernels::convert(attn_out, Dt::F32, xin_.get(), xdt, int64_t{n} * qd, stream_), "convert kernel");
        (*matmul_)(w.wo, xin_.get(), xdt, n, h, 1.0f);

        // Feed-forward block (SwiGLU).
        check(kernels::rms_norm(h, w.ffn_norm.as<float>(), xin_.get(), xdt, n, dim, cfg_.norm_eps, stream_), "rms_norm kernel");
        (*matmul_)(w.w_gate_up, xin_.get(), xdt, n, gate_up_.as<float>());
        check(kernels::swiglu(gate_up_.as<float>(), xin_.get(), xdt, n, cfg_.ffn_dim, stream_), "swiglu kernel");
        (*matmul_)(w.w_down, xin_.get(), xdt, n, h, 1.0f);
    }

    const Model& model_;
    ModelConfig cfg_;
    int device_;
    int chunk_;
    int sm_count_ = 1;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<Gemm> gemm_;
    std::unique_ptr<MatMul> matmul_;  // uses *gemm_
    Dt dt_ = Dt::F32;
    bool keep_blocks_ = true;    // block tensors stay in their GGUF blocks (no forced weight dtype)
    bool block_weights_ = false; // and the model has some
    DeviceWeights w_;
    DeviceBuffer xin_, qkv_, attn_, gate_up_, pos_, logits_, tokens_;
    int context_length_ = 0;
    std::unique_ptr<CudaDecodeStep> decode_step_;  // created at the first decode_next
    DeviceBuffer win_q_, win_pos_, win_lse_, scores_, stage_, split_;
    std::unique_ptr<CudaSnapKvSelect> select_;
    bool keep_full_kv_on_device_ = true;
    DeviceBuffer rope_freq_;  // [head_dim / 2] f64 inverse frequencies
    float rope_attention_factor_ = 1.0f;
};

}  // namespace
}  // namespace cuda

// The parts of the supported families the CUDA kernels do not implement yet (the CPU backend does).
std::string cuda_unsupported_feature(const Model& model) {
    // Every rope scaling kind runs: the rope kernel takes the CPU backend's frequency table.
    const LayerWeights& l = model.weights.layers.front();
    if (l.bq.valid()) return "q/k/v projection biases";
    if (l.q_norm.valid()) return "per-head q/k RMS norms";
    return "";
}

std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options,
                                           const CudaBackendOptions& cuda_options) {
    return std::make_unique<cuda::CudaBackend>(model, options, cuda_options);
}

std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options) {
    return make_cuda_backend(model, options, CudaBackendOptions{});
}

}  // namespace snapdoc
