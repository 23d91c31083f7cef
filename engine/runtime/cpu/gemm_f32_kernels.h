// Internal to gemm_f32.cpp: the ISA-specific halves of the f32 GEMM (gemm_f32.h is the public API).
#pragma once

#include <cstdint>

namespace snapdoc::cpu::gemm_detail {

// Panel geometry of the AVX-512 kernel: C tiles of kRows x kCols, B packed kWidth columns by kDepth
// at a time (256 KiB: stays in L2 while every row block of A streams past it).
inline constexpr int kRows = 14, kCols = 32;
inline constexpr int64_t kDepth = 256, kWidth = 256;

// Floats of packed-B scratch the AVX-512 path needs for n columns (64-byte aligned by the caller).
inline int64_t packed_b_floats(int64_t n) {
    const int64_t width = n < kWidth ? n : kWidth;
    return (width + kCols - 1) / kCols * kCols * kDepth;
}

// gemm_f32 (gemm_f32.h) with `packed` scratch of packed_b_floats(n) floats, 64-byte aligned; B is
// [n, k] when b_transposed, else [k, n]. Only call on a CPU with AVX-512F.
void gemm_avx512(bool b_transposed, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc, float* packed);

}  // namespace snapdoc::cpu::gemm_detail
