#include "engine/runtime/cpu/attention_vec.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/x86_targets.h"

namespace snapdoc::cpu {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// exp(x) = 2^n · e^r with n = round(x·log2 e) and r = x - n·ln 2 split in two constants (Cody–Waite),
// so |r| <= ln2/2 and a degree-6 Taylor polynomial of e^r is accurate to ~1.2e-7.
constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kExpLow = -87.0f;  // below this e^x is (nearly) denormal: the result is 0
constexpr float kExpPoly[] = {1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 1.f / 2, 1.f, 1.f};  // Horner order
constexpr int kExpTerms = sizeof(kExpPoly) / sizeof(kExpPoly[0]);

namespace portable {

float row_max(const float* x, int n) {
    float m = kNegInf;
    for (int j = 0; j < n; ++j) m = std::max(m, x[j]);
    return m;
}

float exp_shift_sum(float* x, int n, float m) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += (x[j] = std::exp(x[j] - m));
    return s;
}

}  // namespace portable

#ifdef SNAPDOC_CPU_X86

// The last steps of a horizontal sum / max, on 4 lanes.
SNAPDOC_TARGET_AVX2 inline float hsum4(__m128 s) {
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
SNAPDOC_TARGET_AVX2 inline float hmax4(__m128 s) {
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

namespace avx2 {

SNAPDOC_TARGET_AVX2 inline __m256 exp8(__m256 x) {
    // NaN stays NaN (issue 14: a NaN score was turned into a masked one): "not less than" is true
    // for NaN, and max_ps returns its second operand when either is NaN.
    const __m256 live = _mm256_cmp_ps(x, _mm256_set1_ps(kExpLow), _CMP_NLT_UQ);
    x = _mm256_max_ps(_mm256_set1_ps(kExpLow), x);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
    __m256 p = _mm256_set1_ps(kExpPoly[0]);
    for (int i = 1; i < kExpTerms; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpPoly[i]));
    // 2^n through the exponent bits; n >= -126 after the clamp, so the biased exponent is >= 1.
    const __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), live);
}

SNAPDOC_TARGET_AVX2 float row_max(const float* x, int n) {
    __m256 m = _mm256_set1_ps(kNegInf);
    int j = 0;
    for (; j + 8 <= n; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + j));
    float r = hmax4(_mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1)));
    for (; j < n; ++j) r = std::max(r, x[j]);
    return r;
}

SNAPDOC_TARGET_AVX2 float exp_shift_sum(float* x, int n, float m) {
    const __m256 vm = _mm256_set1_ps(m);
    __m256 s = _mm256_setzero_ps();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm));
        _mm256_storeu_ps(x + j, e);
        s = _mm256_add_ps(s, e);
    }
    float r = hsum4(_mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)));
    return r + portable::exp_shift_sum(x + j, n - j, m);
}

}  // namespace avx2

namespace avx512 {

SNAPDOC_TARGET_AVX512 inline __m512 exp16(__m512 x) {
    // NaN stays NaN, as in exp8.
    const __mmask16 live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpLow), _CMP_NLT_UQ);
    x = _mm512_max_ps(_mm512_set1_ps(kExpLow), x);
    const __m512 n =
        _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
    __m512 p = _mm512_set1_ps(kExpPoly[0]);
    for (int i = 1; i < kExpTerms; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[i]));
    return _mm512_maskz_scalef_ps(live, p, n);
}

// Horizontal sum / max by folding halves (GCC 12's _mm512_reduce_* trip -Wuninitialized).
SNAPDOC_TARGET_AVX512 inline __m128 fold_add(__m512 v) {
    v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm512_castps512_ps128(_mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1))));
}
SNAPDOC_TARGET_AVX512 inline __m128 fold_max(__m512 v) {
    v = _mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm512_castps512_ps128(_mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1))));
}
SNAPDOC_TARGET_AVX512 inline __mmask16 tail_mask(int left) {
    return static_cast<__mmask16>((1u << left) - 1);
}

SNAPDOC_TARGET_AVX512 float row_max(const float* x, int n) {
    __m512 m = _mm512_set1_ps(kNegInf);
    int j = 0;
    for (; j + 16 <= n; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + j));
    if (j < n) m = _mm512_mask_max_ps(m, tail_mask(n - j), m, _mm512_maskz_loadu_ps(tail_mask(n - j), x + j));
    return hmax4(fold_max(m));
}

SNAPDOC_TARGET_AVX512 float exp_shift_sum(float* x, int n, float m) {
    const __m512 vm = _mm512_set1_ps(m);
    __m512 s = _mm512_setzero_ps();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), vm));
        _mm512_storeu_ps(x + j, e);
        s = _mm512_add_ps(s, e);
    }
    if (j < n) {
        const __mmask16 k = tail_mask(n - j);
        const __m512 e = _mm512_maskz_mov_ps(k, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j), vm)));
        _mm512_mask_storeu_ps(x + j, k, e);
        s = _mm512_add_ps(s, e);
    }
    return hsum4(fold_add(s));
}

}  // namespace avx512

#endif  // SNAPDOC_CPU_X86

struct Kernels {
    const char* name;
    float (*row_max)(const float*, int);
    float (*exp_shift_sum)(float*, int, float);
    bool (*supported)();
};

bool always() {
    return true;
}

// Best first.
const Kernels kKernels[] = {
#ifdef SNAPDOC_CPU_X86
    {"avx512", avx512::row_max, avx512::exp_shift_sum,
     [] { return float_isa() == FloatIsa::Avx512; }},
    {"avx2", avx2::row_max, avx2::exp_shift_sum,
     [] { return float_isa() != FloatIsa::Portable; }},
#endif
    {"portable", portable::row_max, portable::exp_shift_sum, always},
};

const Kernels* best_kernels() {
    for (const Kernels& k : kKernels)
        if (k.supported()) return &k;
    return &kKernels[std::size(kKernels) - 1];
}

std::atomic<const Kernels*> g_kernels{nullptr};

const Kernels& kernels() {
    const Kernels* k = g_kernels.load(std::memory_order_acquire);
    if (!k) g_kernels.store(k = best_kernels(), std::memory_order_release);
    return *k;
}

}  // namespace

float row_max(const float* x, int n) {
    return kernels().row_max(x, n);
}

float exp_shift_sum(float* x, int n, float m) {
    return kernels().exp_shift_sum(x, n, m);
}

void scale_row(float* y, int n, float s) {
    for (int j = 0; j < n; ++j) y[j] *= s;  // auto-vectorised at -O3
}

const char* attention_vector_isa() {
    return kernels().name;
}

std::vector<std::string> attention_vector_isas() {
    std::vector<std::string> names;
    for (const Kernels& k : kKernels)
        if (k.supported()) names.push_back(k.name);
    return names;
}

bool use_attention_vector_isa(const std::string& name) {
    if (name == "auto") {
        g_kernels.store(best_kernels(), std::memory_order_release);
        return true;
    }
    for (const Kernels& k : kKernels)
        if (name == k.name && k.supported()) {
            g_kernels.store(&k, std::memory_order_release);
            return true;
        }
    return false;
}

}  // namespace snapdoc::cpu
