#include "engine/runtime/cuda/device_matrix.h"

#include <algorithm>

#include "engine/common/error.h"
#include "kernels/convert.h"
#include "kernels/embedding.h"

namespace snapdoc::cuda {

std::optional<kernels::BlockType> to_block_type(DType t) {
    using kernels::BlockType;
    switch (t) {
        case DType::Q4_0: return BlockType::Q4_0;
        case DType::Q4_1: return BlockType::Q4_1;
        case DType::Q5_0: return BlockType::Q5_0;
        case DType::Q5_1: return BlockType::Q5_1;
        case DType::Q8_0: return BlockType::Q8_0;
        case DType::IQ4_NL: return BlockType::IQ4_NL;
        case DType::Q2_K: return BlockType::Q2_K;
        case DType::Q3_K: return BlockType::Q3_K;
        case DType::Q4_K: return BlockType::Q4_K;
        case DType::Q5_K: return BlockType::Q5_K;
        case DType::Q6_K: return BlockType::Q6_K;
        case DType::IQ4_XS: return BlockType::IQ4_XS;
        case DType::F32:
        case DType::F16:
        case DType::BF16: break;
    }
    return std::nullopt;
}

bool DeviceMatrix::has_blocks() const {
    return std::any_of(parts.begin(), parts.end(), [](const DeviceMatrixPart& p) { return p.blocks.has_value(); });
}

const void* DeviceMatrix::dense() const {
    if (parts.size() != 1 || parts[0].blocks) throw Error("internal: a block-typed device matrix used as a dense one");
    return parts[0].data.get();
}

int64_t device_tensor_bytes(const TensorView& t, kernels::Dt dt, bool keep_blocks) {
    if (keep_blocks && to_block_type(t.dtype)) return t.rows() * static_cast<int64_t>(dtype_row_bytes(t.dtype, t.cols()));
    return t.numel() * static_cast<int64_t>(kernels::dt_size(dt));
}

void embed_rows(const DeviceMatrix& e, const int32_t* tokens, int n, float* out, cudaStream_t stream) {
    if (n <= 0) return;
    if (!e.has_blocks()) {
        check(kernels::embed_rows(e.dense(), e.dt, e.cols, tokens, n, out, stream), "embedding kernel");
        return;
    }
    if (e.parts.size() != 1) throw Error("internal: token embeddings split into parts");
    check(kernels::dequantize_rows(e.parts[0].data.get(), *e.parts[0].blocks, e.cols, 0, tokens, n, out, kernels::Dt::F32,
                                   e.cols, stream),
          "embedding dequantization");
}

int64_t MatMul::scratch_bytes(int max_cols, int max_n, kernels::Dt dt) {
    const int64_t es = static_cast<int64_t>(kernels::dt_size(dt));
    return std::max(kTileBytes, int64_t{max_cols} * es) + int64_t{max_n} * max_cols * es;
}

void MatMul::reserve(int max_cols, int max_n, kernels::Dt dt) {
    const int64_t es = static_cast<int64_t>(kernels::dt_size(dt));
    tile_.ensure(static_cast<std::size_t>(std::max(tile_bytes_, int64_t{max_cols} * es)), "dequantized weight tile");
    x_conv_.ensure(static_cast<std::size_t>(int64_t{max_n} * max_cols * es), "matmul input conversion");
}

void MatMul::operator()(const DeviceMatrix& w, const void* x, kernels::Dt x_dt, int n, float* y, float beta) {
    if (n <= 0) return;
    if (x_dt != kernels::Dt::F32 && x_dt != w.dt) throw Error("internal: matmul input dtype differs from the weights'");
    const bool gemv = x_dt == kernels::Dt::F32 && n <= kernels::kGemvMaxRows;
    const int64_t es = static_cast<int64_t>(kernels::dt_size(w.dt));
    // The input in the GEMM dtype, converted once for all parts that need cuBLAS.
    const void* x_gemm = x;
    const auto gemm_input = [&] {
        if (x_dt == w.dt || x_gemm != x) return;
        x_conv_.ensure(static_cast<std::size_t>(int64_t{n} * w.cols * es), "matmul input conversion");
        check(kernels::convert(x, x_dt, x_conv_.get(), w.dt, int64_t{n} * w.cols, stream_), "convert kernel");
        x_gemm = x_conv_.get();
    };
    for (const DeviceMatrixPart& p : w.parts) {
        float* yp = y + p.row0;
        if (!p.blocks) {
            gemm_input();
            gemm_(p.data.get(), x_gemm, w.dt, n, w.cols, p.rows, yp, beta, w.rows);
        } else if (gemv) {
            check(kernels::gemv_quant(p.data.get(), *p.blocks, p.rows, w.cols, static_cast<const float*>(x), w.cols, n, yp,
                                      w.rows, beta, stream_),
                  "gemv_quant kernel");
        } else {
            gemm_input();
            const int64_t tile_rows = std::max<int64_t>(1, tile_bytes_ / (int64_t{w.cols} * es));
            tile_.ensure(static_cast<std::size_t>(std::min<int64_t>(tile_rows, p.rows) * w.cols * es), "dequantized weight tile");
            for (int r0 = 0; r0 < p.rows; r0 += static_cast<int>(tile_rows)) {
                const int m = static_cast<int>(std::min<int64_t>(tile_rows, p.rows - r0));
                // Stream order: the GEMM on the previous tile has finished reading it before this runs.
                check(kernels::dequantize_rows(p.data.get(), *p.blocks, w.cols, r0, nullptr, m, tile_.get(), w.dt, w.cols,
                                               stream_),
                      "dequantize_rows kernel");
                gemm_(tile_.get(), x_gemm, w.dt, n, w.cols, m, yp + r0, beta, w.rows);
            }
        }
    }
}

}  // namespace snapdoc::cuda
