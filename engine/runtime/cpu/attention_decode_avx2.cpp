// The AVX2 decode tiles (attention_decode_kernels.h), for CPUs without AVX-512 (Haswell to Zen 3):
// the AVX-512 tiles' design on 8-wide vectors. The scores of 8 keys come from 8 accumulators folded
// into one vector; the values of up to 4 query vectors × 3 8-wide chunks stay in 12 of the 16
// registers over the whole tile. Every function carries the AVX2 target attribute (the file is
// compiled for the x86-64-v2 baseline) and runs only where the CPU has AVX2, FMA and F16C.
#include <algorithm>
#include <cstdint>

#include "engine/runtime/cpu/attention_decode_kernels.h"
#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/x86_targets.h"

namespace snapdoc::cpu::decode_tiles {

namespace {

constexpr int kMaxChunks = 16;  // head_dim <= 128
constexpr int kMaxValueChunks = 3;

#ifdef SNAPDOC_CPU_X86

#define SNAPDOC_TARGET_AVX2_F16C __attribute__((target("avx2,fma,f16c")))

// r[t] = Σ lanes of a[t], t < 8: pairs and pairs of pairs by hadd within the 128-bit halves, then
// the two halves added.
SNAPDOC_TARGET_AVX2_F16C inline __m256 fold8(const __m256* a) {
    const __m256 h0 = _mm256_hadd_ps(a[0], a[1]), h1 = _mm256_hadd_ps(a[2], a[3]);
    const __m256 h2 = _mm256_hadd_ps(a[4], a[5]), h3 = _mm256_hadd_ps(a[6], a[7]);
    const __m256 g0 = _mm256_hadd_ps(h0, h1), g1 = _mm256_hadd_ps(h2, h3);
    return _mm256_add_ps(_mm256_permute2f128_ps(g0, g1, 0x20), _mm256_permute2f128_ps(g0, g1, 0x31));
}

SNAPDOC_TARGET_AVX2_F16C inline __m256 load_row8(const float* v32, const uint16_t* v16, int64_t at) {
    return v32 ? _mm256_loadu_ps(v32 + at)
               : _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v16 + at)));
}

// n rows of the cache from row `first` as f32: the f32 cache's own memory, or the f16 rows
// converted 8 values at a time into buf.
SNAPDOC_TARGET_AVX2_F16C inline const float* keys_as_f32(const float* k32, const uint16_t* k16, int first, int n,
                                                         int hd, float* buf) {
    const int64_t off = static_cast<int64_t>(first) * hd;
    if (k32) return k32 + off;
    for (int64_t i = 0, count = static_cast<int64_t>(n) * hd; i < count; i += 8)
        _mm256_store_ps(buf + i, load_row8(nullptr, k16, off + i));
    return buf;
}

SNAPDOC_TARGET_AVX2_F16C void scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0,
                                     int kt, float scale, float* s, int s_stride) {
    alignas(32) float buf[8 * 8 * kMaxChunks];  // 8 f16 keys in f32: L1-resident for every vector
    const int chunks = hd / 8;
    const __m256 vs = _mm256_set1_ps(scale);
    for (int j = 0; j < kt; j += 8) {
        const int n = std::min(8, kt - j);
        const float* k = keys_as_f32(k32, k16, t0 + j, n, hd, buf);
        for (int i = 0; i < m; ++i) {
            const float* qi = q + static_cast<int64_t>(i) * hd;
            float* si = s + static_cast<int64_t>(i) * s_stride + j;
            if (n < 8) {  // the tile's last keys
                for (int t = 0; t < n; ++t) si[t] = scale * dot_f32(qi, k + static_cast<int64_t>(t) * hd, hd);
                continue;
            }
            __m256 acc[8];
            const __m256 q0 = _mm256_loadu_ps(qi);
            for (int t = 0; t < 8; ++t) acc[t] = _mm256_mul_ps(q0, _mm256_loadu_ps(k + static_cast<int64_t>(t) * hd));
            for (int c = 1; c < chunks; ++c) {
                const __m256 qc = _mm256_loadu_ps(qi + 8 * c);
                for (int t = 0; t < 8; ++t)
                    acc[t] = _mm256_fmadd_ps(qc, _mm256_loadu_ps(k + static_cast<int64_t>(t) * hd + 8 * c), acc[t]);
            }
            _mm256_storeu_ps(si, _mm256_mul_ps(vs, fold8(acc)));
        }
    }
}

// Value row t multiplied into the accumulators of the vectors that see it (Test: some vector may
// not; !Test: every one does). A named function, not a lambda: GCC 12 does not give a lambda its
// enclosing function's target attribute.
template <int M, int CC, bool Test>
SNAPDOC_TARGET_AVX2_F16C inline void add_value_row(__m256 (&a)[M][CC], const float* s, int s_stride,
                                                   const TileRange* seen, const float* v32, const uint16_t* v16,
                                                   int hd, int c0, int t0, int t) {
    __m256 v[CC];
    const int64_t at = static_cast<int64_t>(t0 + t) * hd + 8 * c0;
    for (int c = 0; c < CC; ++c) v[c] = load_row8(v32, v16, at + 8 * c);
    for (int i = 0; i < M; ++i) {
        if (Test && (t < seen[i].lo || t >= seen[i].hi)) continue;
        const __m256 p = _mm256_set1_ps(s[static_cast<int64_t>(i) * s_stride + t]);
        for (int c = 0; c < CC; ++c) a[i][c] = _mm256_fmadd_ps(p, v[c], a[i][c]);
    }
}

// The values of M ≤ 4 query vectors over CC ≤ 3 8-wide chunks of the head from chunk c0; keys every
// vector sees run without a test, the others skip the vectors that do not see them.
template <int M, int CC>
SNAPDOC_TARGET_AVX2_F16C void values_block(const float* s, int s_stride, const TileRange* seen, const float* v32,
                                           const uint16_t* v16, int hd, int c0, int t0, int kt, float* acc) {
    __m256 a[M][CC];
    for (int i = 0; i < M; ++i)
        for (int c = 0; c < CC; ++c) a[i][c] = _mm256_loadu_ps(acc + static_cast<int64_t>(i) * hd + 8 * (c0 + c));
    int lo_all = 0, hi_all = kt, lo_any = kt, hi_any = 0;
    for (int i = 0; i < M; ++i) {
        lo_all = std::max(lo_all, seen[i].lo), hi_all = std::min(hi_all, seen[i].hi);
        if (seen[i].lo < seen[i].hi) lo_any = std::min(lo_any, seen[i].lo), hi_any = std::max(hi_any, seen[i].hi);
    }
    if (lo_all >= hi_all) lo_all = hi_all = hi_any;  // no key every vector sees: all are tested
    for (int t = lo_any; t < lo_all; ++t) add_value_row<M, CC, true>(a, s, s_stride, seen, v32, v16, hd, c0, t0, t);
    for (int t = lo_all; t < hi_all; ++t) add_value_row<M, CC, false>(a, s, s_stride, seen, v32, v16, hd, c0, t0, t);
    for (int t = hi_all; t < hi_any; ++t) add_value_row<M, CC, true>(a, s, s_stride, seen, v32, v16, hd, c0, t0, t);
    for (int i = 0; i < M; ++i)
        for (int c = 0; c < CC; ++c) _mm256_storeu_ps(acc + static_cast<int64_t>(i) * hd + 8 * (c0 + c), a[i][c]);
}

using ValuesBlockFn = void (*)(const float*, int, const TileRange*, const float*, const uint16_t*, int, int, int,
                               int, float*);
template <int M>
constexpr ValuesBlockFn kValuesByChunks[kMaxValueChunks + 1] = {nullptr, values_block<M, 1>, values_block<M, 2>,
                                                                values_block<M, 3>};
constexpr const ValuesBlockFn* kValuesBlocks[5] = {nullptr, kValuesByChunks<1>, kValuesByChunks<2>,
                                                   kValuesByChunks<3>, kValuesByChunks<4>};

void values(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
            const uint16_t* v16, int t0, int kt, float* acc) {
    const int chunks = hd / 8;
    for (int i0 = 0; i0 < m; i0 += 4)
        for (int c0 = 0; c0 < chunks; c0 += kMaxValueChunks)
            kValuesBlocks[std::min(4, m - i0)][std::min(kMaxValueChunks, chunks - c0)](
                s + static_cast<int64_t>(i0) * s_stride, s_stride, seen + i0, v32, v16, hd, c0, t0, kt,
                acc + static_cast<int64_t>(i0) * hd);
}

#undef SNAPDOC_TARGET_AVX2_F16C
#endif  // SNAPDOC_CPU_X86

}  // namespace

bool avx2_supports(int hd) {
    return hd % 8 == 0 && hd / 8 >= 1 && hd / 8 <= kMaxChunks;
}

Kernels avx2_kernels() {
#ifdef SNAPDOC_CPU_X86
    return {scores, values};
#else
    return {};
#endif
}

}  // namespace snapdoc::cpu::decode_tiles
