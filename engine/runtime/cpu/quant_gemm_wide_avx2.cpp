// The AVX2 integer GEMM on 16-bit activations (quant_activation_wide.h) and weights widened to
// 16 bits once per chunk (WideK / Wide32, quant_gemm_kernels.h): one madd_epi16 per 16 products,
// where the 8-bit kernels (quant_gemm_simd.inc) need maddubs + madd (+ sign) per 32. Register tile:
// 2 weight rows × 4 activation rows, as those kernels. Compiled with -mavx2 -mfma -mf16c and without
// AVX-512 (engine/CMakeLists.txt); includes nothing with external inline code, and uses no lambdas
// (GCC 12 does not give them the enclosing target).
//
// Integer bounds: a madd lane is 2 products of |w| ≤ 8064 and |x| ≤ 32767 (5.3e8); the i32 lanes are
// turned into floats every flush_chunks chunks of 32 values (quant_gemm_kernels.h), and a Wide32
// block's lane sums 4 products of |w| ≤ 128 (1.7e7).
#include "engine/runtime/cpu/quant_gemm_kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "engine/runtime/cpu/quant_activation_wide.h"

namespace snapdoc::cpu::quant_gemm_detail {
namespace {

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline __m256i load_u(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// acc + the pair sums of 32 products: values [0, 16) from lo, [16, 32) from hi.
inline __m256i madd32(__m256i acc, __m256i wl, __m256i wh, __m256i xl, __m256i xh) {
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(wl, xl), _mm256_madd_epi16(wh, xh)));
}

template <int MR, int NR>
void micro_k(const WideK* const* w, const WideAct256* const* x, int64_t nb, int flush, bool add, float* y,
             int64_t ldy) {
    __m256 accf[MR][NR];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) accf[r][j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        for (int c0 = 0; c0 < 8; c0 += flush) {
            __m256i acc[MR][NR];
            for (int r = 0; r < MR; ++r)
                for (int j = 0; j < NR; ++j) acc[r][j] = _mm256_setzero_si256();
            for (int c = c0; c < c0 + flush; ++c) {
                __m256i wl[MR], wh[MR];
                for (int r = 0; r < MR; ++r) {
                    wl[r] = load_u(w[r][b].w + 32 * c);
                    wh[r] = load_u(w[r][b].w + 32 * c + 16);
                }
                for (int j = 0; j < NR; ++j) {
                    const __m256i xl = load_u(x[j][b].q + 32 * c), xh = load_u(x[j][b].q + 32 * c + 16);
                    for (int r = 0; r < MR; ++r) acc[r][j] = madd32(acc[r][j], wl[r], wh[r], xl, xh);
                }
            }
            for (int r = 0; r < MR; ++r)
                for (int j = 0; j < NR; ++j)
                    accf[r][j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][j]), _mm256_set1_ps(w[r][b].d * x[j][b].d),
                                                 accf[r][j]);
        }
        for (int r = 0; r < MR; ++r)
            for (int j = 0; j < NR; ++j) {
                __m256 m = _mm256_mul_ps(_mm256_loadu_ps(w[r][b].min), _mm256_loadu_ps(x[j][b].sums16));
                m = _mm256_fmadd_ps(_mm256_loadu_ps(w[r][b].min + 8), _mm256_loadu_ps(x[j][b].sums16 + 8), m);
                accf[r][j] = _mm256_fnmadd_ps(m, _mm256_set1_ps(w[r][b].dmin * x[j][b].d), accf[r][j]);
            }
    }
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) y[j * ldy + r] = (add ? y[j * ldy + r] : 0.0f) + hsum(accf[r][j]);
}

template <int MR, int NR, bool kMin>
void micro_32(const Wide32* const* w, const WideAct32* const* x, int64_t nb, bool add, float* y, int64_t ldy) {
    __m256 accf[MR][NR];
    float off[MR][NR];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) {
            accf[r][j] = _mm256_setzero_ps();
            off[r][j] = 0.0f;
        }
    for (int64_t b = 0; b < nb; ++b) {
        __m256i wl[MR], wh[MR];
        __m256 wd[MR];
        for (int r = 0; r < MR; ++r) {
            wl[r] = load_u(w[r][b].w);
            wh[r] = load_u(w[r][b].w + 16);
            wd[r] = _mm256_set1_ps(w[r][b].d);
        }
        for (int j = 0; j < NR; ++j) {
            const __m256i xl = load_u(x[j][b].q), xh = load_u(x[j][b].q + 16);
            const __m256 xd = _mm256_set1_ps(x[j][b].d);
            for (int r = 0; r < MR; ++r) {
                const __m256i p = madd32(_mm256_setzero_si256(), wl[r], wh[r], xl, xh);
                accf[r][j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_mul_ps(wd[r], xd), accf[r][j]);
                if constexpr (kMin) off[r][j] += w[r][b].m * x[j][b].d_sum;
            }
        }
    }
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) y[j * ldy + r] = (add ? y[j * ldy + r] : 0.0f) + (hsum(accf[r][j]) + off[r][j]);
}

// One tile of mr (1..2) weight rows × nr (1..4) activation rows, at compile-time sizes.
template <int MR>
void tile_k(int nr, const WideK* const* w, const WideAct256* const* x, int64_t nb, int flush, bool add, float* y,
            int64_t ldy) {
    switch (nr) {
        case 4: micro_k<MR, 4>(w, x, nb, flush, add, y, ldy); return;
        case 3: micro_k<MR, 3>(w, x, nb, flush, add, y, ldy); return;
        case 2: micro_k<MR, 2>(w, x, nb, flush, add, y, ldy); return;
        default: micro_k<MR, 1>(w, x, nb, flush, add, y, ldy); return;
    }
}

template <int MR, bool kMin>
void tile_32(int nr, const Wide32* const* w, const WideAct32* const* x, int64_t nb, bool add, float* y, int64_t ldy) {
    switch (nr) {
        case 4: micro_32<MR, 4, kMin>(w, x, nb, add, y, ldy); return;
        case 3: micro_32<MR, 3, kMin>(w, x, nb, add, y, ldy); return;
        case 2: micro_32<MR, 2, kMin>(w, x, nb, add, y, ldy); return;
        default: micro_32<MR, 1, kMin>(w, x, nb, add, y, ldy); return;
    }
}

// The output walked as the 8-bit kernels do, 4 activation rows × every weight row of the chunk,
// 2 at a time, but in spans of kSpanValues of each activation row: the 4 rows' span (19 KiB at
// 16 bits) stays in L1 while the weight rows pass, where 4 whole rows of 8192 values (the FFN
// down projection's) would overflow a 32-48 KiB L1; later spans add to y.
constexpr int64_t kSpanValues = 2048;

void gemm_k(const WideK* w, int rows, int64_t nb, int flush, const uint8_t* act, std::size_t act_stride, int n,
            float* y, int64_t ldy) {
    const int64_t span = kSpanValues / 256;
    for (int64_t b0 = 0; b0 < nb; b0 += span) {
        const int64_t sb = nb - b0 < span ? nb - b0 : span;
        for (int i0 = 0; i0 < n; i0 += 4) {
            const int nr = n - i0 < 4 ? n - i0 : 4;
            const WideAct256* x[4];
            for (int j = 0; j < nr; ++j)
                x[j] = reinterpret_cast<const WideAct256*>(act + static_cast<std::size_t>(i0 + j) * act_stride) + b0;
            for (int r0 = 0; r0 < rows; r0 += 2) {
                const WideK* wr[2] = {w + r0 * nb + b0, w + (r0 + 1 < rows ? r0 + 1 : r0) * nb + b0};
                float* yt = y + static_cast<int64_t>(i0) * ldy + r0;
                if (r0 + 1 < rows)
                    tile_k<2>(nr, wr, x, sb, flush, b0 > 0, yt, ldy);
                else
                    tile_k<1>(nr, wr, x, sb, flush, b0 > 0, yt, ldy);
            }
        }
    }
}

template <bool kMin>
void gemm_32_of(const Wide32* w, int rows, int64_t nb, const uint8_t* act, std::size_t act_stride, int n, float* y,
                int64_t ldy) {
    const int64_t span = kSpanValues / 32;
    for (int64_t b0 = 0; b0 < nb; b0 += span) {
        const int64_t sb = nb - b0 < span ? nb - b0 : span;
        for (int i0 = 0; i0 < n; i0 += 4) {
            const int nr = n - i0 < 4 ? n - i0 : 4;
            const WideAct32* x[4];
            for (int j = 0; j < nr; ++j)
                x[j] = reinterpret_cast<const WideAct32*>(act + static_cast<std::size_t>(i0 + j) * act_stride) + b0;
            for (int r0 = 0; r0 < rows; r0 += 2) {
                const Wide32* wr[2] = {w + r0 * nb + b0, w + (r0 + 1 < rows ? r0 + 1 : r0) * nb + b0};
                float* yt = y + static_cast<int64_t>(i0) * ldy + r0;
                if (r0 + 1 < rows)
                    tile_32<2, kMin>(nr, wr, x, sb, b0 > 0, yt, ldy);
                else
                    tile_32<1, kMin>(nr, wr, x, sb, b0 > 0, yt, ldy);
            }
        }
    }
}

void gemm_32(const Wide32* w, int rows, int64_t nb, bool has_min, const uint8_t* act, std::size_t act_stride, int n,
             float* y, int64_t ldy) {
    if (has_min)
        gemm_32_of<true>(w, rows, nb, act, act_stride, n, y, ldy);
    else
        gemm_32_of<false>(w, rows, nb, act, act_stride, n, y, ldy);
}

}  // namespace

WideKernels avx2_wide_kernels() {
    return {gemm_k, gemm_32};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
#else
namespace snapdoc::cpu::quant_gemm_detail {
WideKernels avx2_wide_kernels() {
    return {};
}
}  // namespace snapdoc::cpu::quant_gemm_detail
#endif
