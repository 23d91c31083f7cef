#include "engine/runtime/cpu/quant_activation_wide.h"

#include <cmath>
#include <limits>

namespace snapdoc::cpu {

namespace {

// Returns d; q[i] = round-to-nearest-even(x[i] / d) in double (x / d is exact enough there that the
// one rounding is to the nearest level), |q| ≤ 32767. Plain scalar code: it runs once per
// activation value, against the GEMM's once per value and weight row.
float quantize_block(const float* x, int n, int16_t* q) {
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

}  // namespace

std::size_t wide_act_row_bytes(WideFormat f, int64_t n) {
    return f == WideFormat::Blocks32 ? static_cast<std::size_t>(n / 32) * sizeof(WideAct32)
                                     : static_cast<std::size_t>(n / 256) * sizeof(WideAct256);
}

void quantize_activation_wide(WideFormat f, const float* x, void* dst, int64_t n) {
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

}  // namespace snapdoc::cpu
