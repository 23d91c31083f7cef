// Our own single-threaded f32 GEMM for the prefill matmuls: C[m,n] = A[m,k]·B[n,k]ᵀ, all row-major
// with leading dimensions (the layout of activations x[n_tokens, in] times a weight W[out, in]).
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

// C = A·Bᵀ, overwriting C. m, n, k >= 0; lda, ldb >= k; ldc >= n. Avx512 on a CPU without it
// throws Error; Auto picks Avx512 when the CPU has it, else Portable (plain loops, slow).
void gemm_f32_nt(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                 float* c, int64_t ldc, GemmIsa isa = GemmIsa::Auto);

}  // namespace snapdoc::cpu
