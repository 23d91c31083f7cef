// The whole batch-1 decode step of the CUDA backend as one CUDA graph: embedding of the token id
// held in device memory, every layer (RMSNorm, QKV product, fused RoPE + K/V append, split-KV
// attention written in the output product's input type, output product + residual, RMSNorm, gate/up product, SwiGLU, down product + residual),
// the final norm, the logits and the sampling on the device (kernels/sampling.h), which writes the
// next token id back to device memory, and the position's advance. Per token the host replays the
// graph and copies the 4-byte sampled id back: one host sync per token.
//
// Why the graph stays valid while the cache grows: nothing that changes per token is a kernel
// parameter. The token id and its position live in device memory (the graph's last kernels write
// the next ones), and so do the cache's segment lengths (one int per layer and cache head, advanced
// by the fused append kernel); the attention kernel reads them when it runs (AttentionArgs::
// seg_length), so each key split follows the real length. What is baked into the graph — the cache's
// buffers and segment offsets, the sampling parameters, the number of key splits per layer — is
// compared before every replay, and the graph is captured again when any of it differs (another
// cache, other parameters, or a length that crosses into another split count). The host keeps what
// the device counters hold; when the cache changed behind the graph's back (a prefill or a default
// step on the same cache, a truncation), the counters are uploaded again before the replay.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/cuda_kv_cache.h"
#include "engine/runtime/cuda/device_matrix.h"
#include "engine/runtime/cuda/device_weights.h"
#include "kernels/sampling.h"
#include "kernels/types.h"

namespace snapdoc::cuda {

// What the step borrows from the backend (all outlive it).
struct DecodeStepContext {
    const ModelConfig* cfg = nullptr;
    const DeviceWeights* weights = nullptr;
    MatMul* matmul = nullptr;   // its scratch reserved up front: no allocation inside a capture
    cudaStream_t stream = nullptr;
    kernels::Dt input_dt = kernels::Dt::F32;  // input type of the one-row products
    int sm_count = 1;
    int context_length = 0;  // BackendOptions::context_length (LongRoPE picks its factors by it)
};

class CudaDecodeStep {
public:
    explicit CudaDecodeStep(const DecodeStepContext& ctx);
    ~CudaDecodeStep();
    CudaDecodeStep(const CudaDecodeStep&) = delete;
    CudaDecodeStep& operator=(const CudaDecodeStep&) = delete;

    // Backend::decode_next with device sampling: `token` (checked here) at `pos` through the
    // captured step on `kv`; returns the sampled next token. Throws Error, with nothing appended,
    // when a segment is full or `pos` does not follow it, and when no logit is finite (as the host
    // sampler does). The caller maps its SamplingParams (no repetition penalty: that stays on the host).
    int32_t run(int32_t token, int32_t pos, CudaKvCache& kv, const kernels::DeviceSamplingParams& sampling);

    int captures() const { return captures_; }  // graphs captured so far

private:
    bool graph_matches(const CudaKvCache& kv, const kernels::DeviceSamplingParams& sp) const;
    void capture(CudaKvCache& kv, const kernels::DeviceSamplingParams& sp);
    void enqueue(CudaKvCache& kv, const kernels::DeviceSamplingParams& sp);
    void destroy_graph();
    std::vector<int> plan_splits(const CudaKvCache& kv) const;

    DecodeStepContext ctx_;
    DeviceBuffer h_, xin_, qkv_, gate_up_, logits_, split_;
    DeviceBuffer rope_freq_;    // [head_dim / 2] f64: rope_frequencies() of the model
    std::vector<double> rope_freq_host_;
    float rope_attention_factor_ = 1.0f;
    DeviceBuffer state_;        // int32: [0] token, [1] position, [2...] segment lengths (layer-major)
    int32_t* host_state_ = nullptr;  // pinned: uploads of the state, and the sampled id's download
    std::vector<int32_t> device_lengths_;  // what state_ holds for the lengths (host mirror)
    int32_t device_token_ = -1, device_pos_ = -1;

    cudaGraphExec_t exec_ = nullptr;
    // What the graph was captured for.
    const void* kv_k_ = nullptr;
    const void* kv_v_ = nullptr;
    const void* kv_pos_ = nullptr;
    std::vector<int> kv_capacity_;
    kernels::DeviceSamplingParams sp_{};
    std::vector<int> splits_;
    int captures_ = 0;
};

}  // namespace snapdoc::cuda
