#include "engine/runtime/cpu/quant_activation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/x86_targets.h"

namespace snapdoc::cpu {

namespace {

// Quantizes `n` values to q with a float scale; returns d and Σq.
float quantize_block_portable(const float* x, int n, int8_t* q, int& sum) {
    float amax = 0.0f;
    bool finite = true;
    for (int i = 0; i < n; ++i) {
        amax = std::max(amax, std::fabs(x[i]));
        finite = finite && std::isfinite(x[i]);
    }
    // A NaN or Inf activation (a broken model or file) must reach the logits, where the NaN-logit
    // guard names it: d = NaN makes every dot with this block NaN. (It used to become 0: every
    // logit exactly 0.0, exit status 0.)
    if (!finite) amax = std::numeric_limits<float>::quiet_NaN();
    const float d = amax / 127.0f;
    const float id = d > 0.0f ? 1.0f / d : 0.0f;
    sum = 0;
    for (int i = 0; i < n; ++i) {
        float v = x[i] * id;
        v = v == v ? std::clamp(v, -127.0f, 127.0f) : 0.0f;
        q[i] = static_cast<int8_t>(std::lrintf(v));
        sum += q[i];
    }
    return d;
}

#ifdef SNAPDOC_CPU_X86
// The same results as the portable code (a NaN or Inf value makes d NaN and every q 0, rounding is
// to nearest even in both), 32 values per step. n is a multiple of 32. Run where the active kernel
// level is AVX2 or above (the build's baseline does not assume AVX2).
SNAPDOC_TARGET_AVX2 float quantize_block_avx2(const float* x, int n, int8_t* q, int& sum) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    __m256 vmax = _mm256_setzero_ps();
    __m256 bad = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 8) {
        const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask);
        vmax = _mm256_max_ps(a, vmax);                                 // NaN: keeps vmax
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, inf, _CMP_NLT_UQ));  // NaN or Inf
    }
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    float amax = _mm_cvtss_f32(m);
    if (_mm256_movemask_ps(bad) != 0) amax = std::numeric_limits<float>::quiet_NaN();  // as the portable code
    const float d = amax / 127.0f;
    const __m256 id = _mm256_set1_ps(d > 0.0f ? 1.0f / d : 0.0f);
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
    const __m256i order =
        _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  // undoes the lane interleave of the packs
    __m256i total = _mm256_setzero_si256();
    for (int i = 0; i < n; i += 32) {
        __m256i v[4];
        for (int k = 0; k < 4; ++k) {
            __m256 f = _mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * k), id);
            f = _mm256_and_ps(f, _mm256_cmp_ps(f, f, _CMP_ORD_Q));  // NaN -> 0
            f = _mm256_min_ps(_mm256_max_ps(f, lo), hi);
            v[k] = _mm256_cvtps_epi32(f);
            total = _mm256_add_epi32(total, v[k]);
        }
        const __m256i q16 =
            _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permutevar8x32_epi32(q16, order));
    }
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
    sum = _mm_cvtsi128_si32(t);
    return d;
}
#endif

// The same bytes either way; float_isa() keeps a CPU without AVX2 (or SNAPDOC_CPU_KERNELS=portable)
// off it.
float quantize_block(const float* x, int n, int8_t* q, int& sum) {
#ifdef SNAPDOC_CPU_X86
    static const bool avx2 = float_isa() != FloatIsa::Portable;
    if (avx2) return quantize_block_avx2(x, n, q, sum);
#endif
    return quantize_block_portable(x, n, q, sum);
}

}  // namespace

ActFormat act_format(DType t) {
    assert(dtype_is_quantized(t));
    return dtype_block_size(t) == 32 ? ActFormat::Blocks32 : ActFormat::Blocks256;
}

std::size_t act_row_bytes(ActFormat f, int64_t n) {
    const auto un = static_cast<std::size_t>(n);
    switch (f) {
        case ActFormat::Blocks32: return un / 32 * sizeof(ActBlock32);
        case ActFormat::Blocks256: return un / 256 * sizeof(ActBlock256);
        case ActFormat::Blocks256Nibbles: return un / 256 * sizeof(ActBlock256Nibbles);
    }
    return 0;
}

namespace {

template <float (*Block)(const float*, int, int8_t*, int&)>
void quantize_rows(ActFormat f, const float* x, void* dst, int64_t n) {
    if (f == ActFormat::Blocks32) {
        auto* out = static_cast<ActBlock32*>(dst);
        for (int64_t b = 0; b < n / 32; ++b) {
            int sum;
            out[b].d = Block(x + 32 * b, 32, out[b].q, sum);
            out[b].d_sum = out[b].d * static_cast<float>(sum);
        }
        return;
    }
    if (f == ActFormat::Blocks256Nibbles) {
        auto* out = static_cast<ActBlock256Nibbles*>(dst);
        for (int64_t b = 0; b < n / 256; ++b) {
            int8_t q[256];
            int sum;
            out[b].d = Block(x + 256 * b, 256, q, sum);
            // Per 128 values: the low-nibble order [0..31, 64..95], then the high-nibble one.
            for (int run = 0; run < 8; ++run) std::copy_n(q + nibble_order_run_start(run), 32, out[b].q + 32 * run);
            for (int g = 0; g < 8; ++g) {
                int s = 0;
                for (int i = 0; i < 32; ++i) s += q[32 * g + i];
                out[b].sums32[g] = static_cast<int16_t>(s);
            }
        }
        return;
    }
    auto* out = static_cast<ActBlock256*>(dst);
    for (int64_t b = 0; b < n / 256; ++b) {
        int sum;
        out[b].d = Block(x + 256 * b, 256, out[b].q, sum);
        for (int g = 0; g < 16; ++g) {
            int s = 0;
            for (int i = 0; i < 16; ++i) s += out[b].q[16 * g + i];
            out[b].sums16[g] = static_cast<int16_t>(s);
        }
    }
}

}  // namespace

void quantize_activation(ActFormat f, const float* x, void* dst, int64_t n) {
    quantize_rows<quantize_block>(f, x, dst, n);
}

void quantize_activation_portable(ActFormat f, const float* x, void* dst, int64_t n) {
    quantize_rows<quantize_block_portable>(f, x, dst, n);
}

}  // namespace snapdoc::cpu
