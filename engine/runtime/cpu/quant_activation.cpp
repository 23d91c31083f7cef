#include "engine/runtime/cpu/quant_activation.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace snapdoc::cpu {

namespace {

// Quantizes `n` values to q with a float scale; returns d and Σq.
float quantize_block(const float* x, int n, int8_t* q, int& sum) {
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));  // NaN ignored
    if (!std::isfinite(amax)) amax = 0.0f;  // an inf activation is a broken model; keep the rest finite
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

}  // namespace

ActFormat act_format(DType t) {
    assert(dtype_is_quantized(t));
    return dtype_block_size(t) == 32 ? ActFormat::Blocks32 : ActFormat::Blocks256;
}

std::size_t act_row_bytes(ActFormat f, int64_t n) {
    const auto un = static_cast<std::size_t>(n);
    return f == ActFormat::Blocks32 ? un / 32 * sizeof(ActBlock32) : un / 256 * sizeof(ActBlock256);
}

void quantize_activation(ActFormat f, const float* x, void* dst, int64_t n) {
    if (f == ActFormat::Blocks32) {
        auto* out = static_cast<ActBlock32*>(dst);
        for (int64_t b = 0; b < n / 32; ++b) {
            int sum;
            out[b].d = quantize_block(x + 32 * b, 32, out[b].q, sum);
            out[b].d_sum = out[b].d * static_cast<float>(sum);
        }
        return;
    }
    auto* out = static_cast<ActBlock256*>(dst);
    for (int64_t b = 0; b < n / 256; ++b) {
        int sum;
        out[b].d = quantize_block(x + 256 * b, 256, out[b].q, sum);
        for (int g = 0; g < 16; ++g) {
            int s = 0;
            for (int i = 0; i < 16; ++i) s += out[b].q[16 * g + i];
            out[b].sums16[g] = static_cast<int16_t>(s);
        }
    }
}

}  // namespace snapdoc::cpu
