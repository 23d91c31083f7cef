// The model's weights on the GPU, converted once at load to the dtype the GEMMs use. Projections
// that read the same input are fused into one matrix (Q|K|V rows, gate|up rows) so a layer runs
// 4 GEMMs instead of 7; norms are f32.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "kernels/types.h"

namespace snapdoc::cuda {

struct DeviceLayer {
    DeviceBuffer attn_norm, ffn_norm;  // [dim] f32
    DeviceBuffer wqkv;                 // [q_dim + 2 * kv_dim, dim]
    DeviceBuffer wo;                   // [dim, q_dim]
    DeviceBuffer w_gate_up;            // [2 * ffn_dim, dim]
    DeviceBuffer w_down;               // [dim, ffn_dim]
};

struct DeviceWeights {
    kernels::Dt dt = kernels::Dt::F32;
    DeviceBuffer tok_embeddings;  // [vocab, dim]
    DeviceBuffer out_norm;        // [dim] f32
    DeviceBuffer output_own;      // [vocab, dim]; empty when the embeddings are tied
    const void* output = nullptr; // output_own or tok_embeddings
    std::vector<DeviceLayer> layers;
};

kernels::Dt to_kernel_dt(DType t);

// Device bytes of the weights of `model` stored as `dt`.
int64_t device_weight_bytes(const Model& model, kernels::Dt dt);

// Uploads and converts (through a bounded device staging buffer; the file stays memory-mapped).
DeviceWeights upload_weights(const Model& model, kernels::Dt dt, cudaStream_t stream);

}  // namespace snapdoc::cuda
