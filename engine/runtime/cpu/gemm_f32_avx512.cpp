// The AVX-512 half of gemm_f32 (see gemm_f32_kernels.h). Every function carries its own target
// attribute, so this file builds without -march and only runs where the dispatcher found AVX-512F.
// Only headers without inline code of their own are included: nothing compiled here for AVX-512
// can be picked by the linker for a caller on an older CPU.
#include <cstdint>
#include <utility>  // std::integer_sequence (types only)

#include "engine/runtime/cpu/gemm_f32_kernels.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SNAPDOC_TARGET_AVX512 __attribute__((target("avx512f,fma")))
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace snapdoc::cpu::gemm_detail {

namespace {

// Transposes a 16 x 16 block: rows r[0..16) (16 depth values each of one B row) become 16
// vectors of 16 B rows each, stored to out + t * kCols for depth t. Three shuffle stages:
// pairs of rows within 128-bit lanes, then quads, then the lanes themselves.
SNAPDOC_TARGET_AVX512 inline void transpose16(const __m512 (&r)[16], float* out) {
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);      // per lane: r_i[0] r_i+1[0] r_i[1] r_i+1[1]
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);  // per lane: elements 2 and 3
    }
    for (int g = 0; g < 16; g += 4) {  // u[g + e]: rows g..g+3, lane L holds element 4L + e
        u[g + 0] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int e = 0; e < 4; ++e) {
        // v0 lanes: e (rows 0-3), e+8 (0-3), e (4-7), e+8 (4-7); v1 the same for e+4, e+12; w for rows 8-15.
        const __m512 v0 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0x88),
                     v1 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0xDD);
        const __m512 w0 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0x88);
        const __m512 w1 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0xDD);
        _mm512_store_ps(out + e * kCols, _mm512_shuffle_f32x4(v0, w0, 0x88));
        _mm512_store_ps(out + (e + 8) * kCols, _mm512_shuffle_f32x4(v0, w0, 0xDD));
        _mm512_store_ps(out + (e + 4) * kCols, _mm512_shuffle_f32x4(v1, w1, 0x88));
        _mm512_store_ps(out + (e + 12) * kCols, _mm512_shuffle_f32x4(v1, w1, 0xDD));
    }
}

// Packs rows [j0, j0+cols) x depth [p0, p0+kc) of B into one panel: for each p, kCols consecutive
// floats (columns past `cols` are zero, so the kernel never branches on the tail). Full groups of
// 16 rows go through register transposes (a strided scalar copy cost ~8% of the GEMM).
SNAPDOC_TARGET_AVX512 void pack_panel(const float* b, int64_t ldb, int64_t j0, int cols, int64_t p0,
                                      int64_t kc, float* out) {
    if (cols < kCols)
        for (int64_t i = 0; i < kc * kCols; i += 16) _mm512_store_ps(out + i, _mm512_setzero_ps());
    const int64_t kc16 = kc / 16 * 16;
    int j = 0;
    for (; j + 16 <= cols; j += 16) {
        const float* rows = b + (j0 + j) * ldb + p0;
        for (int64_t p = 0; p < kc16; p += 16) {
            __m512 r[16];
            for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(rows + i * ldb + p);
            transpose16(r, out + p * kCols + j);
        }
        for (int i = 0; i < 16; ++i)
            for (int64_t p = kc16; p < kc; ++p) out[p * kCols + j + i] = rows[i * ldb + p];
    }
    for (; j < cols; ++j) {
        const float* row = b + (j0 + j) * ldb + p0;
        for (int64_t p = 0; p < kc; ++p) out[p * kCols + j] = row[p];
    }
}

// Packs columns [j0, j0+cols) x depth [p0, p0+kc) of a B stored [k, n] (row p holds every column):
// plain copies of up to kCols floats per depth, zero past `cols`.
SNAPDOC_TARGET_AVX512 void pack_panel_plain(const float* b, int64_t ldb, int64_t j0, int cols, int64_t p0,
                                            int64_t kc, float* out) {
    const __mmask16 mask0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
    const __mmask16 mask1 = cols >= 32   ? __mmask16(0xFFFF)
                            : cols <= 16 ? __mmask16(0)
                                         : __mmask16((1u << (cols - 16)) - 1);
    for (int64_t p = 0; p < kc; ++p) {
        const float* row = b + (p0 + p) * ldb + j0;
        _mm512_store_ps(out + p * kCols, _mm512_maskz_loadu_ps(mask0, row));
        _mm512_store_ps(out + p * kCols + 16, _mm512_maskz_loadu_ps(mask1, row + 16));
    }
}

// One tile: C[0..ROWS, 0..32) = alpha · A[0..ROWS, 0..kc) · panel (+ C), masked to the valid columns.
template <int ROWS>
SNAPDOC_TARGET_AVX512 inline void tile(int64_t kc, const float* a, int64_t lda, const float* panel,
                                       float alpha, float* c, int64_t ldc, __mmask16 mask0, __mmask16 mask1,
                                       bool accumulate) {
    __m512 acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
    for (int64_t p = 0; p < kc; ++p) {
        const __m512 b0 = _mm512_load_ps(panel + p * kCols), b1 = _mm512_load_ps(panel + p * kCols + 16);
#pragma GCC unroll 16
        for (int i = 0; i < ROWS; ++i) {
            const __m512 ai = _mm512_set1_ps(a[i * lda + p]);
            acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
            acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
        }
    }
    const __m512 scale = _mm512_set1_ps(alpha);  // times 1 is exact: no cost in precision for alpha = 1
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
        float* ci = c + i * ldc;
        if (accumulate) {
            acc0[i] = _mm512_fmadd_ps(scale, acc0[i], _mm512_maskz_loadu_ps(mask0, ci));
            acc1[i] = _mm512_fmadd_ps(scale, acc1[i], _mm512_maskz_loadu_ps(mask1, ci + 16));
        } else {
            acc0[i] = _mm512_mul_ps(scale, acc0[i]);
            acc1[i] = _mm512_mul_ps(scale, acc1[i]);
        }
        _mm512_mask_storeu_ps(ci, mask0, acc0[i]);
        _mm512_mask_storeu_ps(ci + 16, mask1, acc1[i]);
    }
}

template <int ROWS>
SNAPDOC_TARGET_AVX512 void row_block(int64_t n, int64_t kc, const float* a, int64_t lda, const float* packed,
                                     float alpha, float* c, int64_t ldc, bool accumulate) {
    for (int64_t j0 = 0; j0 < n; j0 += kCols) {
        const int64_t cols = n - j0 < kCols ? n - j0 : kCols;
        const __mmask16 mask0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
        const __mmask16 mask1 = cols >= 32   ? __mmask16(0xFFFF)
                                : cols <= 16 ? __mmask16(0)
                                             : __mmask16((1u << (cols - 16)) - 1);
        tile<ROWS>(kc, a, lda, packed + j0 * kc, alpha, c + j0, ldc, mask0, mask1, accumulate);
    }
}

using RowBlockFn = void (*)(int64_t, int64_t, const float*, int64_t, const float*, float, float*, int64_t,
                            bool);

template <int... R>
constexpr RowBlockFn row_block_for(int rows, std::integer_sequence<int, R...>) {
    RowBlockFn fns[] = {row_block<R + 1>...};
    return fns[rows - 1];
}

}  // namespace

SNAPDOC_TARGET_AVX512 void gemm_avx512(bool b_transposed, int64_t m, int64_t n, int64_t k, float alpha,
                                       const float* a, int64_t lda, const float* b, int64_t ldb,
                                       bool accumulate, float* c, int64_t ldc, float* packed) {
    if (k <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = 0;
        return;
    }
    for (int64_t jc = 0; jc < n; jc += kWidth) {
        const int64_t nc = n - jc < kWidth ? n - jc : kWidth;
        for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
            const int64_t kc = k - p0 < kDepth ? k - p0 : kDepth;
            // This block of B once, panel by panel; then every row block of A runs over all panels
            // while its kRows x kc slice of A stays in L1.
            for (int64_t j0 = 0; j0 < nc; j0 += kCols) {
                const int cols = static_cast<int>(nc - j0 < kCols ? nc - j0 : kCols);
                if (b_transposed)
                    pack_panel(b, ldb, jc + j0, cols, p0, kc, packed + j0 * kc);
                else
                    pack_panel_plain(b, ldb, jc + j0, cols, p0, kc, packed + j0 * kc);
            }
            const bool add = accumulate || p0 > 0;
            int64_t i0 = 0;
            for (; i0 + kRows <= m; i0 += kRows)
                row_block<kRows>(nc, kc, a + i0 * lda + p0, lda, packed, alpha, c + i0 * ldc + jc, ldc, add);
            if (i0 < m)
                row_block_for(static_cast<int>(m - i0), std::make_integer_sequence<int, kRows>())(
                    nc, kc, a + i0 * lda + p0, lda, packed, alpha, c + i0 * ldc + jc, ldc, add);
        }
    }
}

}  // namespace snapdoc::cpu::gemm_detail

#else

namespace snapdoc::cpu::gemm_detail {
void gemm_avx512(bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, bool,
                 float*, int64_t, float*) {}
}  // namespace snapdoc::cpu::gemm_detail

#endif
