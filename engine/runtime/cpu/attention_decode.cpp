#include "engine/runtime/cpu/attention_decode.h"

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
        b[p] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * p], a[2 * p + 1]), _mm512_unpackhi_ps(a[2 * p], a[2 * p + 1]));
    for (int q = 0; q < 4; ++q) {
        const __m512d x = _mm512_castps_pd(b[2 * q]), y = _mm512_castps_pd(b[2 * q + 1]);
        c[q] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    const __m512 e0 = _mm512_add_ps(_mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_f32x4(c[0], c[1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 e1 = _mm512_add_ps(_mm512_shuffle_f32x4(c[2], c[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_f32x4(c[2], c[3], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(e0, e1, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(e0, e1, _MM_SHUFFLE(3, 1, 3, 1)));
}

template <int C>  // C = head_dim / 16
SNAPDOC_TARGET_AVX512 void scores_avx512(const float* q, int m, const float* k32, const uint16_t* k16, int t0,
                                         int kt, float scale, float* s, int s_stride) {
    constexpr int hd = 16 * C;
    alignas(64) float buf[16 * hd];  // 16 f16 keys in f32: L1-resident while every query vector reads them
    const __m512 vs = _mm512_set1_ps(scale);
    for (int j = 0; j < kt; j += 16) {
        const int n = kt - j < 16 ? kt - j : 16;
        const float* k = rows_as_f32(k32, k16, t0 + j, n, hd, buf);
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
                for (int c = 1; c < C; ++c) acc[t] = _mm512_fmadd_ps(qc[c], _mm512_loadu_ps(kj + 16 * c), acc[t]);
            }
            _mm512_storeu_ps(si, _mm512_mul_ps(vs, fold16(acc)));
        }
    }
}

template <int C>
SNAPDOC_TARGET_AVX512 void values_avx512(const float* s, int s_stride, int m, const float* v32, const uint16_t* v16,
                                         int t0, int kt, float* acc) {
    constexpr int hd = 16 * C;
    alignas(64) float buf[16 * hd];
    for (int j = 0; j < kt; j += 16) {
        const int n = kt - j < 16 ? kt - j : 16;
        const float* v = rows_as_f32(v32, v16, t0 + j, n, hd, buf);
        for (int i = 0; i < m; ++i) {
            const float* si = s + static_cast<int64_t>(i) * s_stride + j;
            float* ai = acc + static_cast<int64_t>(i) * hd;
            __m512 a[C];
            for (int c = 0; c < C; ++c) a[c] = _mm512_loadu_ps(ai + 16 * c);
            for (int t = 0; t < n; ++t) {
                if (si[t] == 0.0f) continue;  // masked keys (outside the query's visible run)
                const __m512 p = _mm512_set1_ps(si[t]);
                const float* vt = v + static_cast<int64_t>(t) * hd;
                for (int c = 0; c < C; ++c) a[c] = _mm512_fmadd_ps(p, _mm512_loadu_ps(vt + 16 * c), a[c]);
            }
            for (int c = 0; c < C; ++c) _mm512_storeu_ps(ai + 16 * c, a[c]);
        }
    }
}

using ScoresFn = void (*)(const float*, int, const float*, const uint16_t*, int, int, float, float*, int);
using ValuesFn = void (*)(const float*, int, int, const float*, const uint16_t*, int, int, float*);
constexpr ScoresFn kScores[kMaxChunks + 1] = {nullptr,          scores_avx512<1>, scores_avx512<2>,
                                              scores_avx512<3>, scores_avx512<4>, scores_avx512<5>,
                                              scores_avx512<6>, scores_avx512<7>, scores_avx512<8>};
constexpr ValuesFn kValues[kMaxChunks + 1] = {nullptr,          values_avx512<1>, values_avx512<2>,
                                              values_avx512<3>, values_avx512<4>, values_avx512<5>,
                                              values_avx512<6>, values_avx512<7>, values_avx512<8>};

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

void decode_scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt, float scale,
                   float* s, int s_stride) {
#ifdef SNAPDOC_CPU_X86
    kScores[hd / 16](q, m, k32, k16, t0, kt, scale, s, s_stride);
#else
    (void)q, (void)m, (void)hd, (void)k32, (void)k16, (void)t0, (void)kt, (void)scale, (void)s, (void)s_stride;
#endif
}

void decode_values(const float* s, int s_stride, int m, int hd, const float* v32, const uint16_t* v16, int t0, int kt,
                   float* acc) {
#ifdef SNAPDOC_CPU_X86
    kValues[hd / 16](s, s_stride, m, v32, v16, t0, kt, acc);
#else
    (void)s, (void)s_stride, (void)m, (void)hd, (void)v32, (void)v16, (void)t0, (void)kt, (void)acc;
#endif
}

}  // namespace snapdoc::cpu
