#include "engine/runtime/cpu/quant_activation_wide.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/x86_targets.h"

namespace snapdoc::cpu {

namespace {

// Returns d; q[i] = round-to-nearest-even(x[i] / d) in double (the quotient of two floats is never
// so close to a half-integer without being one that double's rounding could move it across), so the
// level is the nearest one; |q| ≤ 32767.
float quantize_block_portable(const float* x, int n, int16_t* q) {
    float amax = 0.0f;
    bool finite = true;
    for (int i = 0; i < n; ++i) {
        amax = std::fmax(amax, std::fabs(x[i]));
        finite = finite && std::isfinite(x[i]);
    }
    if (!finite) {
        for (int i = 0; i < n; ++i) q[i] = 0;
        return std::numeric_limits<float>::quiet_NaN();
    }
    const float d = amax / static_cast<float>(kWideActMax);
    for (int i = 0; i < n; ++i) {
        double v = d > 0.0f ? static_cast<double>(x[i]) / static_cast<double>(d) : 0.0;
        v = std::nearbyint(v);  // the default rounding mode: to nearest even
        // d is amax/32767 rounded to float, so amax/d can exceed 32767 by a relative 2^-24: still
        // rounds to 32767; the clamp only guards that reasoning.
        v = std::fmin(std::fmax(v, -kWideActMax), kWideActMax);
        q[i] = static_cast<int16_t>(v);
    }
    return d;
}

#ifdef SNAPDOC_CPU_X86
// The same levels, 8 values per step (the same double division and rounding, so the same bytes;
// tests/unit/test_quant_gemm_wide.cpp). n is a multiple of 8.
SNAPDOC_TARGET_AVX2 float quantize_block_avx2(const float* x, int n, int16_t* q) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    __m256 vmax = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 8) {
        const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask);
        vmax = _mm256_max_ps(a, vmax);
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, inf, _CMP_NLT_UQ));  // NaN or Inf
    }
    if (_mm256_movemask_ps(bad) != 0) {
        std::memset(q, 0, sizeof(int16_t) * static_cast<std::size_t>(n));
        return std::numeric_limits<float>::quiet_NaN();
    }
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    const float d = _mm_cvtss_f32(m) / static_cast<float>(kWideActMax);
    if (!(d > 0.0f)) {
        std::memset(q, 0, sizeof(int16_t) * static_cast<std::size_t>(n));
        return d;
    }
    const __m256d dd = _mm256_set1_pd(d), hi = _mm256_set1_pd(kWideActMax), lo = _mm256_set1_pd(-kWideActMax);
    for (int i = 0; i < n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        __m256d a = _mm256_div_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), dd);
        __m256d b = _mm256_div_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), dd);
        a = _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        b = _mm256_round_pd(b, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        a = _mm256_min_pd(_mm256_max_pd(a, lo), hi);
        b = _mm256_min_pd(_mm256_max_pd(b, lo), hi);
        const __m128i packed = _mm_packs_epi32(_mm256_cvtpd_epi32(a), _mm256_cvtpd_epi32(b));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), packed);
    }
    return d;
}
#endif

using BlockFn = float (*)(const float*, int, int16_t*);

void quantize_with(BlockFn quantize_block, WideFormat f, const float* x, void* dst, int64_t n) {
    if (f == WideFormat::Blocks32) {
        auto* b = static_cast<WideAct32*>(dst);
        for (int64_t k = 0; k < n / 32; ++k) {
            b[k].d = quantize_block(x + 32 * k, 32, b[k].q);
            int sum = 0;
            for (int i = 0; i < 32; ++i) sum += b[k].q[i];
            b[k].d_sum = b[k].d * static_cast<float>(sum);
        }
        return;
    }
    auto* b = static_cast<WideAct256*>(dst);
    for (int64_t k = 0; k < n / 256; ++k) {
        b[k].d = quantize_block(x + 256 * k, 256, b[k].q);
        const bool bad = std::isnan(b[k].d);
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int i = 16 * g; i < 16 * g + 16; ++i) sum += b[k].q[i];
            b[k].sums16[g] = bad ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(sum);
        }
    }
}

}  // namespace

std::size_t wide_act_row_bytes(WideFormat f, int64_t n) {
    return f == WideFormat::Blocks32 ? static_cast<std::size_t>(n / 32) * sizeof(WideAct32)
                                     : static_cast<std::size_t>(n / 256) * sizeof(WideAct256);
}

void quantize_activation_wide(WideFormat f, const float* x, void* dst, int64_t n) {
#ifdef SNAPDOC_CPU_X86
    static const bool avx2 = kernel_level_available(KernelLevel::Avx2);
    if (avx2) {
        quantize_with(quantize_block_avx2, f, x, dst, n);
        return;
    }
#endif
    quantize_with(quantize_block_portable, f, x, dst, n);
}

void quantize_activation_wide_portable(WideFormat f, const float* x, void* dst, int64_t n) {
    quantize_with(quantize_block_portable, f, x, dst, n);
}

}  // namespace snapdoc::cpu
