// The AVX-VNNI integer GEMM: the AVX-512 VNNI level's 16-row interleaved weight blocks
// (quant_gemm_interleaved.h) read as two 256-bit halves of 8 rows each, with the VEX-encoded
// dpbusd / dpwssd that Intel's CPUs from Alder Lake on have without AVX-512. Those CPUs
// otherwise run the AVX2 level, whose maddubs + madd + add take three instructions per 32
// products where one dpbusd here makes 32 (4 values × 8 rows).
//   Super-blocks (K-quants): dpbusd (unsigned levels × signed activation bytes) summed over one
//   scale group, then × d·scale·d_x in float per group; the mins by 8 dpwssd against the
//   activation's per-16 sums, once per block.
//   32-value blocks: dpbusd of unsigned activation bytes (x + 128) by the signed levels, started
//   from −128·Σq; one float multiply-add per block (plus one for Q4_1 / Q5_1's min).
// Tile: 8 weight rows (one half of a 16-row group) × up to 4 activation rows: 4 i32 + 4 f32
// accumulators, so the 16 ymm registers hold the tile with room for the operands. Lane bounds as
// in quant_gemm_avx512vnni.cpp.
// Compiled with its own target flags, without AVX-512 (engine/CMakeLists.txt); chosen at run time
// only where the CPU has AVX-VNNI (kernel_level.h).
#include "engine/runtime/cpu/quant_gemm_interleaved.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__AVXVNNI__)
#include <immintrin.h>

#include <cstring>
#include <utility>

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu::quant_gemm_detail {

namespace {

constexpr int kHalfRows = kInterleavedRows / 2;
constexpr int kSliceRows = kHalfRows;  // a tile covers one 8-row half of a group
constexpr int kMaxTileRows = 4;

inline __m256i broadcast4(const void* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

// The 32 bytes of half h (rows 8h..8h+7) of a 64-byte interleaved step.
inline __m256i load_half(const void* step, int h) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(static_cast<const uint8_t*>(step) + 32 * h));
}
inline __m256 load_half_ps(const float* lanes16, int h) {
    return _mm256_load_ps(lanes16 + 8 * h);
}

// Stores the first `count` lanes of v (count ≤ 8).
inline void store_rows(float* y, __m256 v, int count) {
    if (count == kHalfRows) {
        _mm256_storeu_ps(y, v);
        return;
    }
    alignas(32) float lanes[kHalfRows];
    _mm256_store_ps(lanes, v);
    std::memcpy(y, lanes, sizeof(float) * count);
}

template <int NR, int kGroup>
void tile_k(const InterleavedK16* w, int64_t nb, int h, const ActBlock256* const* x, float* y, int64_t ldy,
            int count) {
    constexpr int kSteps = kGroup / 4;  // 4 values per step
    __m256 accf[NR];
    for (int j = 0; j < NR; ++j) accf[j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const InterleavedK16& wb = w[b];
        {
            __m256i mins_acc[NR];
            for (int j = 0; j < NR; ++j) mins_acc[j] = _mm256_setzero_si256();
            for (int p = 0; p < 8; ++p) {
                const __m256i mins = load_half(wb.min[p], h);
                for (int j = 0; j < NR; ++j)
                    mins_acc[j] = _mm256_dpwssd_avx_epi32(mins_acc[j], mins, broadcast4(x[j][b].sums16 + 2 * p));
            }
            const __m256 dmin = load_half_ps(wb.dmin, h);
            for (int j = 0; j < NR; ++j)
                accf[j] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins_acc[j]),
                                           _mm256_mul_ps(dmin, _mm256_set1_ps(x[j][b].d)), accf[j]);
        }
        for (int g = 0; g < 256 / kGroup; ++g) {
            __m256i acc[NR];
            for (int j = 0; j < NR; ++j) acc[j] = _mm256_setzero_si256();
            // Unrolled: as a loop, GCC copies every accumulator once per step.
#pragma GCC unroll 8
            for (int k = 0; k < kSteps; ++k) {
                const int s = kSteps * g + k;
                const __m256i levels = load_half(wb.q[s], h);
                for (int j = 0; j < NR; ++j)
                    acc[j] = _mm256_dpbusd_avx_epi32(acc[j], levels, broadcast4(x[j][b].q + 4 * s));
            }
            const __m256 scale = load_half_ps(wb.scale[g * (kGroup / 16)], h);
            for (int j = 0; j < NR; ++j)
                accf[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[j]), _mm256_mul_ps(scale, _mm256_set1_ps(x[j][b].d)),
                                          accf[j]);
        }
    }
    for (int j = 0; j < NR; ++j) store_rows(y + j * ldy, accf[j], count);
}

template <int NR, bool kMin>
void tile_32(const Interleaved32x16* w, int64_t nb, int h, const ActBlock32* const* x, float* y, int64_t ldy,
             int count) {
    __m256 accf[NR];
    for (int j = 0; j < NR; ++j) accf[j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const Interleaved32x16& wb = w[b];
        __m256i acc[NR];
        const __m256i bias = load_half(wb.bias, h);
        for (int j = 0; j < NR; ++j) acc[j] = bias;
#pragma GCC unroll 8
        for (int s = 0; s < 8; ++s) {
            const __m256i levels = load_half(wb.q[s], h);
            for (int j = 0; j < NR; ++j)
                acc[j] = _mm256_dpbusd_avx_epi32(acc[j], broadcast4(x[j][b].q + 4 * s), levels);
        }
        const __m256 d = load_half_ps(wb.d, h);
        for (int j = 0; j < NR; ++j) {
            accf[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[j]), _mm256_mul_ps(d, _mm256_set1_ps(x[j][b].d)),
                                      accf[j]);
            if constexpr (kMin)
                accf[j] = _mm256_fmadd_ps(load_half_ps(wb.m, h), _mm256_set1_ps(x[j][b].d_sum), accf[j]);
        }
    }
    for (int j = 0; j < NR; ++j) store_rows(y + j * ldy, accf[j], count);
}

#include "engine/runtime/cpu/quant_gemm_interleaved_tiles.inc"

}  // namespace

InterleavedKernels avxvnni_interleaved_kernels() {
    return {gemm_k16, gemm_32x16};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
#else
namespace snapdoc::cpu::quant_gemm_detail {
InterleavedKernels avxvnni_interleaved_kernels() {
    return {};
}
}  // namespace snapdoc::cpu::quant_gemm_detail
#endif
