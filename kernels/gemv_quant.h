// Block-quantized weights on the device: the GGML block types kept exactly as the GGUF file stores
// them (rows of whole blocks, byte-identical to the file, layouts in engine/model/quant/block_formats.h)
// and two ways to compute with them:
//   gemv_quant       decode-time y = W·x for a few input rows, dequantizing inside the kernel (one
//                    warp per output row, lanes on consecutive block parts: coalesced reads, f32
//                    accumulation). x is f32 (a few KB per row, so its width costs nothing next to
//                    the weights and keeps the activations unrounded).
//   dequantize_rows  rows of blocks -> f32/f16/bf16 rows (a tile for a prefill GEMM on cuBLAS, or
//                    the embedding rows of some tokens). Each value is computed with the same
//                    float operations as the CPU's dequantize_row (no fused multiply-add), so f32
//                    output matches it bit for bit and f16/bf16 output is its correctly rounded value.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

enum class BlockType : uint8_t { Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS };

inline constexpr BlockType kAllBlockTypes[] = {BlockType::Q4_0, BlockType::Q4_1,   BlockType::Q5_0, BlockType::Q5_1,
                                               BlockType::Q8_0, BlockType::IQ4_NL, BlockType::Q2_K, BlockType::Q3_K,
                                               BlockType::Q4_K, BlockType::Q5_K,   BlockType::Q6_K, BlockType::IQ4_XS};

// Values per block: 32 for the legacy types and IQ4_NL, 256 for the K-quants and IQ4_XS.
inline int block_values(BlockType t) { return t < BlockType::Q2_K ? 32 : 256; }

// Bytes per block (ggml's sizes).
inline int block_bytes(BlockType t) {
    switch (t) {
        case BlockType::Q4_0: return 18;
        case BlockType::Q4_1: return 20;
        case BlockType::Q5_0: return 22;
        case BlockType::Q5_1: return 24;
        case BlockType::Q8_0: return 34;
        case BlockType::IQ4_NL: return 18;
        case BlockType::Q2_K: return 84;
        case BlockType::Q3_K: return 110;
        case BlockType::Q4_K: return 144;
        case BlockType::Q5_K: return 176;
        case BlockType::Q6_K: return 210;
        case BlockType::IQ4_XS: return 136;
    }
    return 0;
}

// Bytes of one row of `cols` values (cols a multiple of block_values).
inline int64_t block_row_bytes(BlockType t, int64_t cols) { return cols / block_values(t) * block_bytes(t); }

// The most input rows one gemv_quant launch serves; more are processed in groups of this many
// (each group reads the weights once more: past a few rows, dequantize_rows + a GEMM is cheaper).
inline constexpr int kGemvMaxRows = 4;

// y[j * y_stride + r] = Σ_k W[r, k] · x[j * x_stride + k] (+ beta · y[...] when beta != 0; beta = 0
// never reads y), for r < rows, j < n. W: `rows` rows of `cols` values as blocks of `type`, row r
// at w + r * block_row_bytes(type, cols), w at least 4-byte aligned (cudaMalloc's 256 is). x, y f32.
// cudaErrorInvalidValue when cols is not a whole number of blocks or a size is negative.
cudaError_t gemv_quant(const void* w, BlockType type, int rows, int cols, const float* x, int64_t x_stride, int n,
                       float* y, int64_t y_stride, float beta, cudaStream_t stream);

// dst[i * dst_stride + k] = W[src_row(i), k] for i < rows, k < cols, in dst_dt (F32, F16 or BF16),
// with src_row(i) = row_ids[i] when row_ids (a device array) is given, else row0 + i. Row ids are
// not range-checked here (the caller validates them).
cudaError_t dequantize_rows(const void* w, BlockType type, int cols, int64_t row0, const int32_t* row_ids, int rows,
                            void* dst, Dt dst_dt, int64_t dst_stride, cudaStream_t stream);

}  // namespace snapdoc::kernels
