// The scalar reference of the 16-bit activation GEMM (quant_gemm_wide_avx2.cpp): the same integer
// products, exact in int64 per block, then one float multiply-add per block. The AVX2 kernel is
// tested against it (tests/unit/test_quant_gemm_wide.cpp) and a CPU without AVX2 can run it.
#include "engine/runtime/cpu/quant_activation_wide.h"
#include "engine/runtime/cpu/quant_gemm_kernels.h"

namespace snapdoc::cpu::quant_gemm_detail {

namespace {

float dot_k(const WideK* w, const WideAct256* x, int64_t nb) {
    float sum = 0.0f;
    for (int64_t b = 0; b < nb; ++b) {
        int64_t dot = 0;
        for (int i = 0; i < 256; ++i) dot += int64_t{w[b].w[i]} * x[b].q[i];
        float mins = 0.0f;
        for (int g = 0; g < 16; ++g) mins += w[b].min[g] * x[b].sums16[g];
        sum += w[b].d * x[b].d * static_cast<float>(dot) - w[b].dmin * x[b].d * mins;
    }
    return sum;
}

float dot_32(const Wide32* w, const WideAct32* x, int64_t nb) {
    float sum = 0.0f;
    for (int64_t b = 0; b < nb; ++b) {
        int64_t dot = 0;
        for (int i = 0; i < 32; ++i) dot += int64_t{w[b].w[i]} * x[b].q[i];
        sum += w[b].d * x[b].d * static_cast<float>(dot) + w[b].m * x[b].d_sum;
    }
    return sum;
}

void gemm_k(const WideK* w, int rows, int64_t nb, int /*flush_chunks: int64 needs none*/, const uint8_t* act,
            std::size_t act_stride, int n, float* y, int64_t ldy) {
    for (int i = 0; i < n; ++i) {
        const auto* x = reinterpret_cast<const WideAct256*>(act + static_cast<std::size_t>(i) * act_stride);
        for (int r = 0; r < rows; ++r) y[i * ldy + r] = dot_k(w + r * nb, x, nb);
    }
}

void gemm_32(const Wide32* w, int rows, int64_t nb, bool /*has_min: m is 0 when absent*/, const uint8_t* act,
             std::size_t act_stride, int n, float* y, int64_t ldy) {
    for (int i = 0; i < n; ++i) {
        const auto* x = reinterpret_cast<const WideAct32*>(act + static_cast<std::size_t>(i) * act_stride);
        for (int r = 0; r < rows; ++r) y[i * ldy + r] = dot_32(w + r * nb, x, nb);
    }
}

}  // namespace

WideKernels portable_wide_kernels() {
    return {gemm_k, gemm_32};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
