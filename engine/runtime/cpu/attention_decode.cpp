#include "engine/runtime/cpu/attention_decode.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cpu/attention_vec.h"
#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/x86_targets.h"

namespace snapdoc::cpu {

namespace {

constexpr int kMaxChunks = 8;  // head_dim <= 128

#ifdef SNAPDOC_CPU_X86

// r[t] = Σ lanes of a[t], t < 16: pairs within 128-bit lanes, then pairs of pairs, then the four
// 128-bit lanes of four vectors transposed and added.
SNAPDOC_TARGET_AVX512 inline __m512 fold16(const __m512* a) {
    __m512 b[8], c[4];
    for (int p = 0; p < 8; ++p)
        b[p] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * p], a[2 * p + 1]),
                             _mm512_unpackhi_ps(a[2 * p], a[2 * p + 1]));
    for (int q = 0; q < 4; ++q) {
        const __m512d x = _mm512_castps_pd(b[2 * q]), y = _mm512_castps_pd(b[2 * q + 1]);
        c[q] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    const __m512 e0 = _mm512_add_ps(_mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 e1 = _mm512_add_ps(_mm512_shuffle_f32x4(c[2], c[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_f32x4(c[2], c[3], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(e0, e1, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(e0, e1, _MM_SHUFFLE(3, 1, 3, 1)));
}

// n rows of an f16 cache from row `first` into buf, 16 values per conversion (the out-of-line
// f16_to_f32_row converts 8 per instruction, and its call sits on the path that waits for memory).
SNAPDOC_TARGET_AVX512 inline const float* keys_as_f32(const float* k32, const uint16_t* k16, int first, int n,
                                                      int hd, float* buf) {
    const int64_t off = static_cast<int64_t>(first) * hd;
    if (k32) return k32 + off;
    const uint16_t* src = k16 + off;
    for (int64_t i = 0, count = static_cast<int64_t>(n) * hd; i < count; i += 16)
        _mm512_store_ps(buf + i,
                        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
    return buf;
}

template <int C>  // C = head_dim / 16
SNAPDOC_TARGET_AVX512 void scores_avx512(const float* q, int m, const float* k32, const uint16_t* k16, int t0,
                                         int kt, float scale, float* s, int s_stride) {
    constexpr int hd = 16 * C;
    alignas(64) float buf[16 * hd];  // 16 f16 keys in f32: L1-resident while every query vector reads them
    const __m512 vs = _mm512_set1_ps(scale);
    for (int j = 0; j < kt; j += 16) {
        const int n = kt - j < 16 ? kt - j : 16;
        const float* k = keys_as_f32(k32, k16, t0 + j, n, hd, buf);
        for (int i = 0; i < m; ++i) {
            const float* qi = q + static_cast<int64_t>(i) * hd;
            float* si = s + static_cast<int64_t>(i) * s_stride + j;
            if (n < 16) {  // the tile's last keys
                for (int t = 0; t < n; ++t) si[t] = scale * dot_f32(qi, k + static_cast<int64_t>(t) * hd, hd);
                continue;
            }
            __m512 qc[C], acc[16];
            for (int c = 0; c < C; ++c) qc[c] = _mm512_loadu_ps(qi + 16 * c);
            for (int t = 0; t < 16; ++t) {
                const float* kj = k + static_cast<int64_t>(t) * hd;
                acc[t] = _mm512_mul_ps(qc[0], _mm512_loadu_ps(kj));
                for (int c = 1; c < C; ++c)
                    acc[t] = _mm512_fmadd_ps(qc[c], _mm512_loadu_ps(kj + 16 * c), acc[t]);
            }
            _mm512_storeu_ps(si, _mm512_mul_ps(vs, fold16(acc)));
        }
    }
}

// The values of M ≤ 4 query vectors over CC ≤ 4 16-wide chunks of the head, from chunk c0: each
// value row is read (and converted) once into registers and multiplied into all M accumulators,
// which stay in registers for the whole tile. Keys every vector sees run without a test; the keys
// some vector does not see (other rows' futures, a sliding window's edge) skip that vector, so a
// masked key adds nothing, not 0·v.
template <int M, int CC>
SNAPDOC_TARGET_AVX512 void values_block(const float* s, int s_stride, const TileRange* seen, const float* v32,
                                        const uint16_t* v16, int hd, int c0, int t0, int kt, float* acc) {
    __m512 a[M][CC];
    for (int i = 0; i < M; ++i)
        for (int c = 0; c < CC; ++c)
            a[i][c] = _mm512_loadu_ps(acc + static_cast<int64_t>(i) * hd + 16 * (c0 + c));
    // Keys [lo_all, hi_all) every vector sees, [lo_any, hi_any) some vector sees.
    int lo_all = 0, hi_all = kt, lo_any = kt, hi_any = 0;
    for (int i = 0; i < M; ++i) {
        lo_all = std::max(lo_all, seen[i].lo), hi_all = std::min(hi_all, seen[i].hi);
        if (seen[i].lo < seen[i].hi)
            lo_any = std::min(lo_any, seen[i].lo), hi_any = std::max(hi_any, seen[i].hi);
    }
    if (lo_all >= hi_all) lo_all = hi_all = hi_any;  // no key every vector sees: all are tested
    // GCC 12 does not give a lambda its enclosing function's target: named here, or the intrinsics fail to inline.
    const auto add_key = [&](int t, bool test) SNAPDOC_TARGET_AVX512 {
        __m512 v[CC];
        const int64_t at = static_cast<int64_t>(t0 + t) * hd + 16 * c0;
        for (int c = 0; c < CC; ++c)
            v[c] = v32 ? _mm512_loadu_ps(v32 + at + 16 * c)
                       : _mm512_cvtph_ps(
                             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v16 + at + 16 * c)));
        for (int i = 0; i < M; ++i) {
            if (test && (t < seen[i].lo || t >= seen[i].hi)) continue;
            const __m512 p = _mm512_set1_ps(s[static_cast<int64_t>(i) * s_stride + t]);
            for (int c = 0; c < CC; ++c) a[i][c] = _mm512_fmadd_ps(p, v[c], a[i][c]);
        }
    };
    for (int t = lo_any; t < lo_all; ++t) add_key(t, true);
    for (int t = lo_all; t < hi_all; ++t) add_key(t, false);
    for (int t = hi_all; t < hi_any; ++t) add_key(t, true);
    for (int i = 0; i < M; ++i)
        for (int c = 0; c < CC; ++c)
            _mm512_storeu_ps(acc + static_cast<int64_t>(i) * hd + 16 * (c0 + c), a[i][c]);
}

using ValuesBlockFn = void (*)(const float*, int, const TileRange*, const float*, const uint16_t*, int, int,
                               int, int, float*);
template <int M>
constexpr ValuesBlockFn kValuesByChunks[5] = {nullptr, values_block<M, 1>, values_block<M, 2>,
                                              values_block<M, 3>, values_block<M, 4>};
constexpr const ValuesBlockFn* kValuesBlocks[5] = {nullptr, kValuesByChunks<1>, kValuesByChunks<2>,
                                                   kValuesByChunks<3>, kValuesByChunks<4>};

using ScoresFn = void (*)(const float*, int, const float*, const uint16_t*, int, int, float, float*, int);
constexpr ScoresFn kScores[kMaxChunks + 1] = {nullptr,          scores_avx512<1>, scores_avx512<2>,
                                              scores_avx512<3>, scores_avx512<4>, scores_avx512<5>,
                                              scores_avx512<6>, scores_avx512<7>, scores_avx512<8>};
#endif  // SNAPDOC_CPU_X86

}  // namespace

bool decode_tile_available(int hd) {
#ifdef SNAPDOC_CPU_X86
    return hd % 16 == 0 && hd / 16 >= 1 && hd / 16 <= kMaxChunks &&
           std::strcmp(attention_vector_isa(), "avx512") == 0;
#else
    (void)hd;
    return false;
#endif
}

void decode_scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt,
                   float scale, float* s, int s_stride) {
#ifdef SNAPDOC_CPU_X86
    kScores[hd / 16](q, m, k32, k16, t0, kt, scale, s, s_stride);
#else
    (void)q, (void)m, (void)hd, (void)k32, (void)k16, (void)t0, (void)kt, (void)scale, (void)s,
        (void)s_stride;
#endif
}

void decode_values(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
                   const uint16_t* v16, int t0, int kt, float* acc) {
#ifdef SNAPDOC_CPU_X86
    // Query vectors four at a time (each batch re-reads the tile's values, from L1 / L2 after the
    // first), the head 64 values at a time: at most 16 accumulators in registers.
    const int chunks = hd / 16;
    for (int i0 = 0; i0 < m; i0 += 4)
        for (int c0 = 0; c0 < chunks; c0 += 4)
            kValuesBlocks[std::min(4, m - i0)][std::min(4, chunks - c0)](
                s + static_cast<int64_t>(i0) * s_stride, s_stride, seen + i0, v32, v16, hd, c0, t0, kt,
                acc + static_cast<int64_t>(i0) * hd);
#else
    (void)s, (void)s_stride, (void)seen, (void)m, (void)hd, (void)v32, (void)v16, (void)t0, (void)kt,
        (void)acc;
#endif
}

}  // namespace snapdoc::cpu
