// y[n, out] = x[n, in] · Wᵀ for a weight W [out, in] of any supported dtype.
// Small batches (decode) stream each weight row once through the dot kernels, in parallel over
// output rows; block-quantized weights are dotted in integers with the activation rows quantized
// to 8 bits once per call (quant_dot.h; llama.cpp's scheme, so ~1e-2 relative error per product).
// Larger batches (prefill) run a single-threaded f32 GEMM on slices of W in parallel (our AVX-512
// kernel, gemm_f32.h, where the CPU has it; OpenBLAS sgemm elsewhere), dequantizing each slice
// into scratch when W is not f32 (exact; weights stay compact in memory).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/tensor.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

class MatMul {
public:
    explicit MatMul(ThreadPool& pool) : pool_(pool) {}
    void operator()(const TensorView& w, const float* x, int n, float* y);

private:
    void small_batch(const TensorView& w, const float* x, int n, float* y);
    void small_batch_quantized(const TensorView& w, const float* x, int n, float* y);
    void blas(const TensorView& w, const float* x, int n, float* y);

    ThreadPool& pool_;
    std::vector<std::vector<float>> scratch_;  // per thread: dequantized weight rows for the sgemm path
    std::vector<uint8_t> act_;                 // the small batch's activation rows, quantized to 8 bits
};

// Rows handled by the streaming kernel rather than sgemm.
inline constexpr int kSmallBatchRows = 4;

}  // namespace snapdoc::cpu
