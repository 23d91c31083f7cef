// The AVX-512 VNNI integer GEMM on 16-row interleaved weight blocks (quant_gemm_interleaved.h):
// each 512-bit register holds 4 values of 16 weight rows, each activation row's 4 matching bytes
// are broadcast to every lane, and the 16 outputs stay in the lanes of one accumulator per
// activation row across all blocks. Tile: 16 weight rows × up to 8 activation rows.
//   Super-blocks (K-quants): dpbusd (unsigned levels × signed activation bytes → i32) summed over
//   one scale group (32 values for Q4_K / Q5_K, 16 for the others), then one float multiply-add
//   by the rows' d·scale per group; the mins by 8 dpwssd against the activation's per-16 sums.
//   One integer instruction per 4 values and 16 rows, where scaling each pair of products in
//   integers (maddubs + dpwssd) took two: +50% GOP/s on the 1B shape's Q4_K and Q6_K matrices.
//   32-value blocks: dpbusd of unsigned activation bytes (x + 128) by the signed levels, started
//   from −128·Σq; one float multiply-add per block (plus one for Q4_1 / Q5_1's min).
// No lane overflows: a group's i32 lane is at most 16·63·127 or 32·31·127 (< 2^17, so its float
// conversion is exact too); a 32-value block's lane ≤ 32·255·128.
// Compiled with its own target flags (engine/CMakeLists.txt); chosen at run time only where the CPU
// has AVX512-VNNI (kernel_level.h).
#include "engine/runtime/cpu/quant_gemm_interleaved.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__)
#include <immintrin.h>

#include <cstring>
#include <utility>

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu::quant_gemm_detail {

namespace {

constexpr int kSliceRows = kInterleavedRows;  // a tile covers a whole 16-row group
constexpr int kMaxTileRows = 8;  // activation rows per tile: 8 i32 + 8 + 8 f32 accumulators in 32 registers

inline __m512i broadcast4(const void* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

inline __m512i load(const void* p) {
    return _mm512_load_si512(p);
}

// The first `count` of 16 rows.
inline __mmask16 first_rows(int count) {
    return static_cast<__mmask16>((1u << count) - 1u);
}

template <int NR, int kGroup>
void tile_k(const InterleavedK16* w, int64_t nb, int /*half: 0*/, const ActBlock256* const* x, float* y,
            int64_t ldy, int count) {
    constexpr int kSteps = kGroup / 4;  // 4 values per step
    __m512 accf[NR];
    for (int j = 0; j < NR; ++j) accf[j] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const InterleavedK16& wb = w[b];
        // The block's float sum per activation row starts as −dmin·Σ min·(activation sums), so it is
        // multiplied by the activation's scale once, at the end.
        __m512 accb[NR];
        {
            __m512i mins_acc[NR];
            for (int j = 0; j < NR; ++j) mins_acc[j] = _mm512_setzero_si512();
            for (int p = 0; p < 8; ++p) {
                const __m512i mins = load(wb.min[p]);
                for (int j = 0; j < NR; ++j)
                    mins_acc[j] = _mm512_dpwssd_epi32(mins_acc[j], mins, broadcast4(x[j][b].sums16 + 2 * p));
            }
            const __m512 neg_dmin = _mm512_sub_ps(_mm512_setzero_ps(), _mm512_load_ps(wb.dmin));
            for (int j = 0; j < NR; ++j) accb[j] = _mm512_mul_ps(_mm512_cvtepi32_ps(mins_acc[j]), neg_dmin);
        }
        for (int g = 0; g < 256 / kGroup; ++g) {
            __m512i acc[NR];
            for (int j = 0; j < NR; ++j) acc[j] = _mm512_setzero_si512();
            // Unrolled: as a loop, GCC copies every accumulator once per step.
#pragma GCC unroll 8
            for (int k = 0; k < kSteps; ++k) {
                const int s = kSteps * g + k;
                const __m512i levels = load(wb.q[s]);
                for (int j = 0; j < NR; ++j)
                    acc[j] = _mm512_dpbusd_epi32(acc[j], levels, broadcast4(x[j][b].q + 4 * s));
            }
            const __m512 scale = _mm512_load_ps(wb.scale[g * (kGroup / 16)]);
            for (int j = 0; j < NR; ++j) accb[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[j]), scale, accb[j]);
        }
        for (int j = 0; j < NR; ++j) accf[j] = _mm512_fmadd_ps(accb[j], _mm512_set1_ps(x[j][b].d), accf[j]);
    }
    for (int j = 0; j < NR; ++j) _mm512_mask_storeu_ps(y + j * ldy, first_rows(count), accf[j]);
}

template <int NR, bool kMin>
void tile_32(const Interleaved32x16* w, int64_t nb, int /*half: 0*/, const ActBlock32* const* x, float* y,
             int64_t ldy, int count) {
    __m512 accf[NR];
    for (int j = 0; j < NR; ++j) accf[j] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const Interleaved32x16& wb = w[b];
        __m512i acc[NR];
        const __m512i bias = load(wb.bias);
        for (int j = 0; j < NR; ++j) acc[j] = bias;
        for (int s = 0; s < 8; ++s) {
            const __m512i levels = load(wb.q[s]);
            for (int j = 0; j < NR; ++j)
                acc[j] = _mm512_dpbusd_epi32(acc[j], broadcast4(x[j][b].q + 4 * s), levels);
        }
        const __m512 d = _mm512_load_ps(wb.d);
        for (int j = 0; j < NR; ++j) {
            accf[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[j]), _mm512_mul_ps(d, _mm512_set1_ps(x[j][b].d)),
                                      accf[j]);
            if constexpr (kMin)
                accf[j] = _mm512_fmadd_ps(_mm512_load_ps(wb.m), _mm512_set1_ps(x[j][b].d_sum), accf[j]);
        }
    }
    for (int j = 0; j < NR; ++j) _mm512_mask_storeu_ps(y + j * ldy, first_rows(count), accf[j]);
}

#include "engine/runtime/cpu/quant_gemm_interleaved_tiles.inc"

}  // namespace

InterleavedKernels avx512_interleaved_kernels() {
    return {gemm_k16, gemm_32x16};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
#else
namespace snapdoc::cpu::quant_gemm_detail {
InterleavedKernels avx512_interleaved_kernels() {
    return {};
}
}  // namespace snapdoc::cpu::quant_gemm_detail
#endif
