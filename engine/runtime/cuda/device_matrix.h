// A weight matrix on the device as the backend multiplies with it: row ranges ("parts") that are
// either GGUF blocks kept byte-identical to the file (kernels/gemv_quant.h) or dense rows in the
// backend's GEMM dtype. A fused matrix (Q|K|V, gate|up) whose tensors have different block types
// (Q4_K_M files mix Q4_K and Q6_K) keeps one part per run of equal types.
//
// MatMul computes y[n, rows] = x[n, cols] · Wᵀ (+ beta · y) part by part:
//   block part, n <= kGemvMaxRows, x f32   -> gemv_quant straight from the blocks (decode);
//   block part otherwise                   -> dequantize_rows into a tile of at most kTileBytes in
//                                             the GEMM dtype, cuBLAS on the tile (prefill);
//   dense part                             -> cuBLAS on the part.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/gemm.h"
#include "kernels/gemv_quant.h"
#include "kernels/types.h"

namespace snapdoc::cuda {

// The device block type of a GGUF dtype; nullopt for F32/F16/BF16.
std::optional<kernels::BlockType> to_block_type(DType t);

struct DeviceMatrixPart {
    DeviceBuffer data;
    std::optional<kernels::BlockType> blocks;  // set: GGUF blocks; unset: dense in DeviceMatrix::dt
    int row0 = 0, rows = 0;                    // rows [row0, row0 + rows) of the matrix
};

struct DeviceMatrix {
    int rows = 0, cols = 0;
    kernels::Dt dt = kernels::Dt::F32;  // the dtype of dense parts and of prefill tiles
    std::vector<DeviceMatrixPart> parts;

    bool has_blocks() const;
    // The one dense buffer of a matrix without block parts (embedding gathers, tests); throws otherwise.
    const void* dense() const;
};

// Device bytes of `t` as upload stores it: its blocks as they are when keep_blocks and t is a block
// type, else numel elements of dt.
int64_t device_tensor_bytes(const TensorView& t, kernels::Dt dt, bool keep_blocks);

// out[r, :] = E[tokens[r], :] as f32 (tokens on the device, checked by the caller).
void embed_rows(const DeviceMatrix& e, const int32_t* tokens, int n, float* out, cudaStream_t stream);

class MatMul {
public:
    static constexpr int64_t kTileBytes = int64_t{32} << 20;

    // tile_bytes: the prefill tile's size (tests use small ones to cross tile boundaries).
    MatMul(const Gemm& gemm, cudaStream_t stream, int64_t tile_bytes = kTileBytes)
        : gemm_(gemm), stream_(stream), tile_bytes_(tile_bytes) {}

    // x: n rows of w.cols values in x_dt (F32, or w.dt); y: n rows of w.rows f32 values.
    void operator()(const DeviceMatrix& w, const void* x, kernels::Dt x_dt, int n, float* y, float beta = 0.0f);

    // The scratch operator() allocates at most for matrices of up to `max_cols` columns, inputs of
    // up to `max_n` rows and GEMM dtype dt (tile + converted input), for up-front memory checks.
    static int64_t scratch_bytes(int max_cols, int max_n, kernels::Dt dt);
    // Allocates that scratch now, so no product allocates later (nothing is half built when memory
    // runs out, and a captured CUDA graph never meets a cudaMalloc).
    void reserve(int max_cols, int max_n, kernels::Dt dt);

private:
    const Gemm& gemm_;
    cudaStream_t stream_;
    int64_t tile_bytes_;
    DeviceBuffer tile_, x_conv_;
};

}  // namespace snapdoc::cuda
