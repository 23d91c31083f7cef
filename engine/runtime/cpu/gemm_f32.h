// Our own single-threaded f32 GEMM for the prefill matmuls, C[m,n] = A[m,k]·B[n,k]ᵀ (activations
// x[n_tokens, in] times a weight W[out, in]), and the attention tiles (S = scale·Q·Kᵀ, O += P·V with
// V stored [keys, head_dim]); all row-major with leading dimensions.
// Why not OpenBLAS: this project's environment pins OPENBLAS_CORETYPE=Haswell (older OpenBLAS
// builds miscompute with their own choice on Zen 5), so sgemm runs 256-bit kernels at about half of
// what a 512-bit FMA core can do. The AVX-512 path packs B into 32-column panels per K block and
// runs a 14x32 register-blocked micro-kernel; callers parallelise over slices of n themselves.
// Results are exact f32 (each element a sum of f32 FMAs), only the summation order differs.
#pragma once

#include <cstdint>

namespace snapdoc::cpu {

enum class GemmIsa { Auto, Avx512, Portable };

// Whether this CPU runs the AVX-512 kernel (checked once). Callers without it keep OpenBLAS.
bool gemm_f32_has_avx512();
// Whether the callers that pick a GEMM (MatMul, the attention tiles) take the AVX-512 kernel: the CPU
// has it and the float kernels may use it (float_isa(), kernel_level.h); else OpenBLAS.
bool gemm_f32_use_avx512();

// How B is stored: Transposed is B [n, k] (a weight W [out, in]: C = A·Bᵀ); AsIs is B [k, n]
// (attention's V [keys, head_dim]: C = A·B).
enum class GemmB { Transposed, AsIs };

// C = alpha·A·op(B), plus the old C when `accumulate` (else C is overwritten). m, n, k >= 0;
// lda >= k; ldb >= k (Transposed) or >= n (AsIs); ldc >= n. Avx512 on a CPU without it throws
// Error; Auto picks Avx512 when the CPU has it, else Portable (plain loops, slow).
void gemm_f32(GemmB layout, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc,
              GemmIsa isa = GemmIsa::Auto);

// C = A·Bᵀ for B [n, k], overwriting C: the prefill matmul's call.
inline void gemm_f32_nt(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                        int64_t ldb, float* c, int64_t ldc, GemmIsa isa = GemmIsa::Auto) {
    gemm_f32(GemmB::Transposed, m, n, k, 1.0f, a, lda, b, ldb, false, c, ldc, isa);
}

}  // namespace snapdoc::cpu
