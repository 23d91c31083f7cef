// The portable integer GEMM kernels: the same integer products as the SIMD ones (quant_gemm_simd.inc)
// in plain loops. What a CPU without AVX2 runs, and the reference the SIMD kernels are tested against.
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_gemm_interleaved.h"
#include "engine/runtime/cpu/quant_gemm_kernels.h"

namespace snapdoc::cpu::quant_gemm_detail {

namespace {

float dot_k(const UnpackedK* w, const ActBlock256* x, int64_t nb) {
    float sum = 0.0f;
    for (int64_t b = 0; b < nb; ++b) {
        int dot = 0, mins = 0;
        for (int g = 0; g < 16; ++g) {
            int s = 0;
            for (int i = 16 * g; i < 16 * g + 16; ++i) s += w[b].q[i] * x[b].q[i];
            dot += w[b].scale[g / 2][8 * (g % 2)] * s;
            mins += w[b].min[g] * x[b].sums16[g];
        }
        sum += w[b].d * x[b].d * static_cast<float>(dot) - w[b].dmin * x[b].d * static_cast<float>(mins);
    }
    return sum;
}

float dot_32(const Unpacked32* w, const ActBlock32* x, int64_t nb) {
    float sum = 0.0f;
    for (int64_t b = 0; b < nb; ++b) {
        int dot = 0;
        for (int i = 0; i < 32; ++i) dot += w[b].q[i] * x[b].q[i];
        sum += w[b].d * x[b].d * static_cast<float>(dot) + w[b].m * x[b].d_sum;
    }
    return sum;
}

template <class W, class X, float (*Dot)(const W*, const X*, int64_t)>
void gemm(const W* w, int rows, int64_t nb, const uint8_t* act, std::size_t act_stride, int n, float* y,
          int64_t ldy) {
    for (int i = 0; i < n; ++i) {
        const auto* x = reinterpret_cast<const X*>(act + static_cast<std::size_t>(i) * act_stride);
        for (int r = 0; r < rows; ++r) y[i * ldy + r] = Dot(w + r * nb, x, nb);
    }
}

void gemm_k(const UnpackedK* w, int rows, int64_t nb, const uint8_t* act, std::size_t act_stride, int n, float* y,
            int64_t ldy) {
    gemm<UnpackedK, ActBlock256, dot_k>(w, rows, nb, act, act_stride, n, y, ldy);
}

void gemm_32(const Unpacked32* w, int rows, int64_t nb, bool /*has_min: m is 0 when absent*/, const uint8_t* act,
             std::size_t act_stride, int n, float* y, int64_t ldy) {
    gemm<Unpacked32, ActBlock32, dot_32>(w, rows, nb, act, act_stride, n, y, ldy);
}

}  // namespace

Kernels portable_kernels() {
    return {gemm_k, gemm_32};
}

bool kernels_built(KernelLevel level) {
    switch (level) {
        case KernelLevel::Portable: return true;
        case KernelLevel::Avx2: return avx2_kernels().k != nullptr;
        case KernelLevel::AvxVnni: return avxvnni_interleaved_kernels().k != nullptr;
        case KernelLevel::Avx512Vnni: return avx512_interleaved_kernels().k != nullptr;
    }
    return false;
}

}  // namespace snapdoc::cpu::quant_gemm_detail
