// The model's weights on the GPU. Block-quantized tensors (Q4_0 ... IQ4_XS) stay in their GGUF
// blocks (device_matrix.h: GEMV from the blocks for decode, dequantized tiles for prefill GEMMs);
// the others, or all of them when keep_blocks is false, are converted once at load to the dtype the
// GEMMs use. Projections that read the same input are fused into one matrix (Q|K|V rows, gate|up
// rows) so a layer runs 4 matrix products instead of 7; norms are f32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/device_matrix.h"
#include "kernels/types.h"

namespace snapdoc::cuda {

struct DeviceLayer {
    DeviceBuffer attn_norm, ffn_norm;  // [dim] f32
    DeviceMatrix wqkv;                 // [q_dim + 2 * kv_dim, dim]
    DeviceMatrix wo;                   // [dim, q_dim]
    DeviceMatrix w_gate_up;            // [2 * ffn_dim, dim]
    DeviceMatrix w_down;               // [dim, ffn_dim]
};

struct DeviceWeights {
    kernels::Dt dt = kernels::Dt::F32;
    DeviceMatrix tok_embeddings;  // [vocab, dim]
    DeviceBuffer out_norm;        // [dim] f32
    DeviceMatrix output_own;      // [vocab, dim]; empty when the embeddings are tied
    const DeviceMatrix& output() const { return output_own.parts.empty() ? tok_embeddings : output_own; }
    std::vector<DeviceLayer> layers;
};

kernels::Dt to_kernel_dt(DType t);

// Device bytes of the weights of `model` stored as `dt` (block tensors as their blocks when keep_blocks).
int64_t device_weight_bytes(const Model& model, kernels::Dt dt, bool keep_blocks = true);

// Whether some matrix of `model` stays in GGUF blocks on the device.
bool device_weights_have_blocks(const Model& model, bool keep_blocks = true);

// "Q4_K/Q6_K blocks + F16" or "F16": what the weights of `model` become on the device.
std::string device_weight_formats(const Model& model, kernels::Dt dt, bool keep_blocks = true);

// Uploads and converts (through a bounded device staging buffer; the file stays memory-mapped).
DeviceWeights upload_weights(const Model& model, kernels::Dt dt, cudaStream_t stream, bool keep_blocks = true);

}  // namespace snapdoc::cuda
