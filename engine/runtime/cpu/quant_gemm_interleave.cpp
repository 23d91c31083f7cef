// The unpacked weight forms rearranged into 16-row interleaved blocks (quant_gemm_interleaved.h).
// Plain scalar code: it runs once per weight row and call, while the GEMM reuses each block for
// every activation row of the call (hundreds in a prefill chunk).
#include <cstddef>
#include <cstring>

#include "engine/runtime/cpu/quant_gemm_interleaved.h"

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu::quant_gemm_detail {

void interleave_k16(const UnpackedK* rows, int count, int64_t nb, InterleavedK16* out) {
    for (int64_t b = 0; b < nb; ++b) {
        InterleavedK16& o = out[b];
        std::memset(&o, 0, sizeof o);  // rows past count stay zero: they add nothing
        for (int r = 0; r < count; ++r) {
            const UnpackedK& u = rows[r * nb + b];
            for (int s = 0; s < 64; ++s) std::memcpy(o.q[s][r], u.q + 4 * s, 4);
            for (int g = 0; g < 16; ++g) o.scale[g][r][0] = o.scale[g][r][1] = u.scale[g / 2][8 * (g % 2)];
            for (int p = 0; p < 8; ++p) {
                o.min[p][r][0] = u.min[2 * p];
                o.min[p][r][1] = u.min[2 * p + 1];
            }
            o.d[r] = u.d;
            o.dmin[r] = u.dmin;
        }
    }
}

void interleave_32x16(const Unpacked32* rows, int count, int64_t nb, Interleaved32x16* out) {
    for (int64_t b = 0; b < nb; ++b) {
        Interleaved32x16& o = out[b];
        std::memset(&o, 0, sizeof o);
        for (int r = 0; r < count; ++r) {
            const Unpacked32& u = rows[r * nb + b];
            int sum = 0;
            for (int s = 0; s < 8; ++s) std::memcpy(o.q[s][r], u.q + 4 * s, 4);
            for (int v = 0; v < 32; ++v) sum += u.q[v];
            o.bias[r] = -128 * sum;
            o.d[r] = u.d;
            o.m[r] = u.m;
        }
    }
}

void to_unsigned_levels(const uint8_t* act, std::size_t act_stride, int n, int64_t nb, uint8_t* dst) {
    const std::size_t bytes = static_cast<std::size_t>(nb) * sizeof(ActBlock32);
    for (int i = 0; i < n; ++i) {
        uint8_t* row = dst + static_cast<std::size_t>(i) * bytes;
        std::memcpy(row, act + static_cast<std::size_t>(i) * act_stride, bytes);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t* q = row + b * sizeof(ActBlock32) + offsetof(ActBlock32, q);
            for (int v = 0; v < 32; ++v) q[v] ^= 0x80;  // two's complement q + 128 as an unsigned byte
        }
    }
}

}  // namespace snapdoc::cpu::quant_gemm_detail
