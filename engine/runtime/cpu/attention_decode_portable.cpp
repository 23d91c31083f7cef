// The portable decode tiles (attention_decode_kernels.h): one dot product per (vector, key) and one
// axpy per (vector, value row), through the dispatched dot kernels (dot_kernels.h). They serve
// CPUs without AVX2 and head sizes the vector tiles do not take, with the same masking contract: a
// vector reads only the value rows it sees.
#include <algorithm>
#include <cstdint>

#include "engine/runtime/cpu/attention_decode_kernels.h"
#include "engine/runtime/cpu/dot_kernels.h"

namespace snapdoc::cpu::decode_tiles {

namespace {

void scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt, float scale,
            float* s, int s_stride) {
    float buf[kPortableMaxHeadDim];
    for (int j = 0; j < kt; ++j) {
        const float* k = rows_as_f32(k32, k16, t0 + j, 1, hd, buf);
        for (int i = 0; i < m; ++i)
            s[static_cast<int64_t>(i) * s_stride + j] = scale * dot_f32(q + static_cast<int64_t>(i) * hd, k, hd);
    }
}

void values(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
            const uint16_t* v16, int t0, int kt, float* acc) {
    float buf[kPortableMaxHeadDim];
    int lo = kt, hi = 0;
    for (int i = 0; i < m; ++i)
        if (seen[i].lo < seen[i].hi) lo = std::min(lo, seen[i].lo), hi = std::max(hi, seen[i].hi);
    for (int t = lo; t < hi; ++t) {
        const float* v = rows_as_f32(v32, v16, t0 + t, 1, hd, buf);
        for (int i = 0; i < m; ++i)
            if (t >= seen[i].lo && t < seen[i].hi)
                axpy_f32(s[static_cast<int64_t>(i) * s_stride + t], v, acc + static_cast<int64_t>(i) * hd, hd);
    }
}

}  // namespace

Kernels portable_kernels() {
    return {scores, values};
}

}  // namespace snapdoc::cpu::decode_tiles
