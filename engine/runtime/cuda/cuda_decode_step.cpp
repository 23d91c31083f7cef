#include "engine/runtime/cuda/cuda_decode_step.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "engine/common/error.h"
#include "engine/model/rope_scaling.h"
#include "kernels/attention.h"
#include "kernels/decode_fused.h"
#include "kernels/elementwise.h"
#include "kernels/norm.h"

namespace snapdoc::cuda {

namespace {
using kernels::Dt;
constexpr int kTokenSlot = 0, kPosSlot = 1, kLengthSlots = 2;

bool same_params(const kernels::DeviceSamplingParams& a, const kernels::DeviceSamplingParams& b) {
    return a.temperature == b.temperature && a.top_k == b.top_k && a.top_p == b.top_p && a.min_p == b.min_p &&
           a.seed == b.seed;
}
}  // namespace

CudaDecodeStep::CudaDecodeStep(const DecodeStepContext& ctx) : ctx_(ctx) {
    const ModelConfig& c = *ctx_.cfg;
    const std::size_t xin_width = static_cast<std::size_t>(std::max({c.dim, c.q_dim(), c.ffn_dim}));
    const std::string what = "the decode step's scratch";
    h_.ensure(static_cast<std::size_t>(c.dim) * 4, what);
    xin_.ensure(xin_width * 4, what);  // f32 is the widest input type
    qkv_.ensure(static_cast<std::size_t>(c.q_dim() + 2 * c.kv_dim()) * 4, what);
    gate_up_.ensure(static_cast<std::size_t>(2 * c.ffn_dim) * 4, what);
    logits_.ensure(static_cast<std::size_t>(c.vocab_size) * 4, what);
    // The rotation table of every rope scaling kind, as the CPU backend computes it.
    const int context = ctx_.context_length > 0 ? ctx_.context_length : c.context_length;
    const RopeFrequencies f = rope_frequencies(c.head_dim, c.rope_theta, c.rope_scaling, context);
    rope_attention_factor_ = static_cast<float>(f.attention_factor);
    rope_freq_host_ = f.inv_freq;  // the asynchronous upload's source: kept alive with the step
    rope_freq_.ensure(rope_freq_host_.size() * sizeof(double), what);
    check(cudaMemcpyAsync(rope_freq_.get(), rope_freq_host_.data(), rope_freq_host_.size() * sizeof(double),
                          cudaMemcpyHostToDevice, ctx_.stream),
          "rope frequency upload");
}

CudaDecodeStep::~CudaDecodeStep() {
    destroy_graph();
    if (host_state_) cudaFreeHost(host_state_);
}

void CudaDecodeStep::destroy_graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
    kv_k_ = kv_v_ = kv_pos_ = nullptr;
}

// Key splits per layer for the current lengths (kernels::plan_attention's choice for one row).
std::vector<int> CudaDecodeStep::plan_splits(const CudaKvCache& kv) const {
    const ModelConfig& c = *ctx_.cfg;
    std::vector<int> s(static_cast<std::size_t>(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l)
        s[l] = kernels::plan_attention(1, c.n_heads, kv.spec().n_heads, kv.max_length(l) + 1, ctx_.sm_count).n_split;
    return s;
}

bool CudaDecodeStep::graph_matches(const CudaKvCache& kv, const kernels::DeviceSamplingParams& sp) const {
    // A cache with the same three buffers and capacities has the same segment offsets: the graph
    // serves it even when it is another object (a cache freed and its memory handed out again).
    return exec_ && kv_k_ == kv.k() && kv_v_ == kv.v() && kv_pos_ == kv.pos() && kv_capacity_ == kv.spec().capacity &&
           same_params(sp_, sp) && splits_ == plan_splits(kv);
}

void CudaDecodeStep::enqueue(CudaKvCache& kv, const kernels::DeviceSamplingParams& sp) {
    const ModelConfig& c = *ctx_.cfg;
    const DeviceWeights& w = *ctx_.weights;
    MatMul& mm = *ctx_.matmul;
    cudaStream_t st = ctx_.stream;
    const Dt xdt = ctx_.input_dt;
    const int dim = c.dim, qd = c.q_dim(), H = kv.spec().n_heads;
    int32_t* token = state_.as<int32_t>() + kTokenSlot;
    int32_t* pos = state_.as<int32_t>() + kPosSlot;
    int32_t* lengths = state_.as<int32_t>() + kLengthSlots;
    float* h = h_.as<float>();
    const auto conv = c.rope_style == RopeStyle::AdjacentPairs ? kernels::RopeConvention::AdjacentPairs
                                                                : kernels::RopeConvention::RotateHalf;

    embed_rows(w.tok_embeddings, token, 1, h, st);
    for (int l = 0; l < c.n_layers; ++l) {
        const DeviceLayer& lw = w.layers[l];
        const kernels::KvLayerView view = kv.layer_view(l);  // pointers and offsets; lengths from `lengths`
        check(kernels::rms_norm(h, lw.attn_norm.as<float>(), xin_.get(), xdt, 1, dim, c.norm_eps, st), "rms_norm kernel");
        mm(lw.wqkv, xin_.get(), xdt, 1, qkv_.as<float>());

        kernels::RopeAppendArgs ra;
        ra.qkv = qkv_.as<float>();
        ra.n_heads = c.n_heads;
        ra.n_kv_heads = c.n_kv_heads;
        ra.cache = view;
        ra.length = lengths + static_cast<int64_t>(l) * H;
        ra.position = pos;
        ra.inv_freq = rope_freq_.as<double>();
        ra.attention_factor = rope_attention_factor_;
        ra.convention = conv;
        check(kernels::rope_kv_append(ra, st), "rope_kv_append kernel");

        kernels::AttentionArgs a;
        a.q = qkv_.as<float>();
        a.q_stride = qd + 2 * c.kv_dim();
        a.q_pos = pos;
        a.n = 1;
        a.n_heads = c.n_heads;
        a.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
        a.cache = view;
        a.max_len = kv.max_length(l) + 1;  // plans the split count (splits_[l])
        a.seg_length = ra.length;
        a.out_stride = qd;  // one row: written in the output product's input type, to its input
        a.out_cast = xin_.get();
        a.out_cast_dt = xdt;
        a.scratch = splits_[l] > 1 ? split_.as<float>() : nullptr;
        a.sm_count = ctx_.sm_count;
        check(kernels::attention(a, st), "decode attention kernel");
        mm(lw.wo, xin_.get(), xdt, 1, h, 1.0f);

        check(kernels::rms_norm(h, lw.ffn_norm.as<float>(), xin_.get(), xdt, 1, dim, c.norm_eps, st), "rms_norm kernel");
        mm(lw.w_gate_up, xin_.get(), xdt, 1, gate_up_.as<float>());
        check(kernels::swiglu(gate_up_.as<float>(), xin_.get(), xdt, 1, c.ffn_dim, st), "swiglu kernel");
        mm(lw.w_down, xin_.get(), xdt, 1, h, 1.0f);
    }
    check(kernels::rms_norm(h, w.out_norm.as<float>(), xin_.get(), xdt, 1, dim, c.norm_eps, st), "rms_norm kernel");
    mm(w.output(), xin_.get(), xdt, 1, logits_.as<float>());
    check(kernels::sample_token(logits_.as<float>(), c.vocab_size, sp, pos, token, st), "sampling kernel");
    check(kernels::advance_position(pos, st), "advance_position kernel");
}

void CudaDecodeStep::capture(CudaKvCache& kv, const kernels::DeviceSamplingParams& sp) {
    destroy_graph();
    const ModelConfig& c = *ctx_.cfg;
    splits_ = plan_splits(kv);
    int64_t split_floats = 0;
    for (int l = 0; l < c.n_layers; ++l)
        split_floats = std::max(split_floats, kernels::attention_scratch_floats(1, c.n_heads, kv.spec().n_heads, c.head_dim,
                                                                                kv.max_length(l) + 1, ctx_.sm_count));
    // Every allocation before the capture (a cudaMalloc inside it would invalidate the capture).
    if (split_floats > 0) split_.ensure(static_cast<std::size_t>(split_floats) * 4, "split-KV attention scratch");

    cudaStream_t st = ctx_.stream;
    check(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
        enqueue(kv, sp);
    } catch (...) {
        cudaStreamEndCapture(st, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    check(cudaStreamEndCapture(st, &graph), "cudaStreamEndCapture (decode step)");
    const cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) exec_ = nullptr;
    check(e, "cudaGraphInstantiate (decode step)");
    kv_k_ = kv.k();
    kv_v_ = kv.v();
    kv_pos_ = kv.pos();
    kv_capacity_ = kv.spec().capacity;
    sp_ = sp;
    ++captures_;
}

int32_t CudaDecodeStep::run(int32_t token, int32_t pos, CudaKvCache& kv, const kernels::DeviceSamplingParams& sp) {
    const ModelConfig& c = *ctx_.cfg;
    if (token < 0 || token >= c.vocab_size)
        throw Error("token id " + std::to_string(token) + " is outside the vocabulary (0.." +
                    std::to_string(c.vocab_size - 1) + ")");
    const KvCacheSpec& spec = kv.spec();
    if (spec.n_layers != c.n_layers) throw Error("decode step: the KV cache does not match the model");
    const int H = spec.n_heads;
    const std::size_t segments = static_cast<std::size_t>(c.n_layers) * H;
    // Validate the append for every segment before anything is written.
    for (int l = 0; l < c.n_layers; ++l)
        for (int ch = 0; ch < H; ++ch) kv.check_append(l, ch, &pos, 1);

    const std::size_t state_ints = kLengthSlots + segments;
    if (state_.bytes() < state_ints * 4 || !host_state_) {
        destroy_graph();  // the state moves
        state_.ensure(state_ints * 4, "the decode step's state");
        if (host_state_) cudaFreeHost(host_state_);
        host_state_ = nullptr;
        check(cudaMallocHost(reinterpret_cast<void**>(&host_state_), state_.bytes()), "cudaMallocHost (decode step)");
        device_lengths_.clear();
        device_token_ = device_pos_ = -1;
    }
    if (!graph_matches(kv, sp)) capture(kv, sp);

    // The device counters must hold this token, its position and the cache's lengths. After a
    // replay they do already; otherwise one upload of the whole state (pinned: asynchronous, and
    // the buffer is not touched again before this step's sync).
    bool lengths_match = device_lengths_.size() == segments;
    for (std::size_t s = 0; lengths_match && s < segments; ++s)
        lengths_match = device_lengths_[s] == kv.length(static_cast<int>(s) / H, static_cast<int>(s) % H);
    if (!lengths_match || token != device_token_ || pos != device_pos_) {
        device_lengths_.resize(segments);
        for (std::size_t s = 0; s < segments; ++s)
            device_lengths_[s] = kv.length(static_cast<int>(s) / H, static_cast<int>(s) % H);
        host_state_[kTokenSlot] = token;
        host_state_[kPosSlot] = pos;
        std::memcpy(host_state_ + kLengthSlots, device_lengths_.data(), segments * 4);
        check(cudaMemcpyAsync(state_.get(), host_state_, state_ints * 4, cudaMemcpyHostToDevice, ctx_.stream),
              "decode state upload");
    }

    check(cudaGraphLaunch(exec_, ctx_.stream), "cudaGraphLaunch (decode step)");
    check(cudaMemcpyAsync(host_state_ + kTokenSlot, state_.as<int32_t>() + kTokenSlot, 4, cudaMemcpyDeviceToHost,
                          ctx_.stream),
          "sampled token download");
    check(cudaStreamSynchronize(ctx_.stream), "decode step");  // the one host sync of the token
    const int32_t next = host_state_[kTokenSlot];

    // Host bookkeeping of what the graph appended, and of the device counters.
    for (int l = 0; l < c.n_layers; ++l)
        for (int ch = 0; ch < H; ++ch) kv.commit_append(l, ch, &pos, 1);
    for (int32_t& len : device_lengths_) ++len;
    device_pos_ = pos + 1;
    device_token_ = next;
    if (next < 0) throw Error("sampler: every logit is -inf or NaN; no token can be chosen");
    return next;
}

}  // namespace snapdoc::cuda
