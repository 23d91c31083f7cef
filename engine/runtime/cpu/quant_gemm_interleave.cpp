// The unpacked weight forms rearranged into 16-row interleaved blocks (quant_gemm_interleaved.h).
// Plain scalar code: it runs once per weight row and call, while the GEMM reuses each block for
// every activation row of the call (hundreds in a prefill chunk).
#include <cstddef>
#include <cstring>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_gemm_interleaved.h"

namespace snapdoc::cpu::quant_gemm_detail {

void interleave_k16(const UnpackedK* rows, int count, int64_t nb, InterleavedK16* out) {
    for (int64_t b = 0; b < nb; ++b) {
        InterleavedK16& o = out[b];
        std::memset(&o, 0, sizeof o);  // rows past count stay zero: they add nothing
        for (int r = 0; r < count; ++r) {
            const UnpackedK& u = rows[r * nb + b];
            for (int s = 0; s < 64; ++s) std::memcpy(o.q[s][r], u.q + 4 * s, 4);
            for (int g = 0; g < 16; ++g) o.scale[g][r] = u.d * u.scale[g / 2][8 * (g % 2)];
            for (int p = 0; p < 8; ++p) {
                o.min[p][r][0] = u.min[2 * p];
                o.min[p][r][1] = u.min[2 * p + 1];
            }
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

namespace {

using namespace quant;

void store4(uint8_t* dst, uint32_t v) {
    std::memcpy(dst, &v, 4);
}

// Calls fill(out[b], r, block bytes) for every block b and row r < count, rows past count zero.
template <class I, class Fill>
void each_block(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb, int block_bytes, I* out,
                const Fill& fill) {
    for (int64_t b = 0; b < nb; ++b) {
        if (count < kInterleavedRows) std::memset(&out[b], 0, sizeof(I));
        for (int r = 0; r < count; ++r) fill(out[b], r, rows + r * row_bytes + b * block_bytes);
    }
}

// Q4_K / Q5_K: values 64c..64c+31 in the low nibbles of qs[32c..], 64c+32.. in the high ones, so 4
// consecutive values are one masked (or shifted) 32-bit word; Q5_K's fifth bit of value e is bit
// e / 32 of qh[e % 32] (2c for the low half, 2c + 1 for the high half). Q4_K and Q5_K share every
// offset but where qs starts (block_formats.h).
template <bool kFive>
void k4_rows(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb, InterleavedK16* out) {
    constexpr int kBytes = kFive ? kQ5_KBytes : kQ4_KBytes, kQsAt = kFive ? q5k::kQs : q4k::kQs;
    each_block(rows, row_bytes, count, nb, kBytes, out, [](InterleavedK16& o, int r, const uint8_t* blk) {
        for (int c = 0; c < 4; ++c)
            for (int l4 = 0; l4 < 8; ++l4) {
                const uint32_t v = load_u32(blk + kQsAt + 32 * c + 4 * l4);
                uint32_t low = v & 0x0F0F0F0Fu, high = (v >> 4) & 0x0F0F0F0Fu;
                if constexpr (kFive) {
                    const uint32_t qh = load_u32(blk + q5k::kQh + 4 * l4);
                    low |= ((qh >> (2 * c)) & 0x01010101u) << 4;
                    high |= ((qh >> (2 * c + 1)) & 0x01010101u) << 4;
                }
                store4(o.q[16 * c + l4][r], low);
                store4(o.q[16 * c + 8 + l4][r], high);
            }
        static_assert(q4k::kScales == q5k::kScales && q4k::kD == q5k::kD && q4k::kDmin == q5k::kDmin);
        const ScaleMin8 sm = unpack_scale_min_k4(blk + q4k::kScales);
        const float d = f16_to_f32(load_u16(blk + q4k::kD));
        for (int g = 0; g < 16; ++g) o.scale[g][r] = d * static_cast<float>(sm.scale[g / 2]);
        for (int p = 0; p < 8; ++p) o.min[p][r][0] = o.min[p][r][1] = static_cast<int16_t>(sm.min[p]);
        o.dmin[r] = f16_to_f32(load_u16(blk + q4k::kDmin));
    });
}

// Q6_K: value 128h + 32k + l has its low 4 bits in ql[64h + 32(k % 2) + l] (nibble k / 2) and its
// high 2 bits in qh[32h + l] (bits 2k); the level offset 32 becomes a min of 32·scale (dmin = d).
void q6_k_rows(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb, InterleavedK16* out) {
    each_block(rows, row_bytes, count, nb, kQ6_KBytes, out, [](InterleavedK16& o, int r, const uint8_t* blk) {
        for (int h = 0; h < 2; ++h)
            for (int k = 0; k < 4; ++k)
                for (int l = 0; l < 32; l += 4) {
                    const uint32_t low =
                        (load_u32(blk + q6k::kQl + 64 * h + 32 * (k % 2) + l) >> (4 * (k / 2))) & 0x0F0F0F0Fu;
                    const uint32_t high = (load_u32(blk + q6k::kQh + 32 * h + l) >> (2 * k)) & 0x03030303u;
                    store4(o.q[32 * h + 8 * k + l / 4][r], low | (high << 4));
                }
        const float d = f16_to_f32(load_u16(blk + q6k::kD));
        for (int g = 0; g < 16; ++g) {
            const int scale = static_cast<int8_t>(blk[q6k::kScales + g]);
            o.scale[g][r] = d * static_cast<float>(scale);
            o.min[g / 2][r][g % 2] = static_cast<int16_t>(32 * scale);
        }
        o.dmin[r] = d;
    });
}

void q8_0_rows(const uint8_t* rows, std::size_t row_bytes, int count, int64_t nb, Interleaved32x16* out) {
    each_block(rows, row_bytes, count, nb, kQ8_0Bytes, out, [](Interleaved32x16& o, int r, const uint8_t* blk) {
        for (int s = 0; s < 8; ++s) std::memcpy(o.q[s][r], blk + 2 + 4 * s, 4);
        int sum = 0;
        for (int v = 0; v < 32; ++v) sum += static_cast<int8_t>(blk[2 + v]);
        o.bias[r] = -128 * sum;
        o.d[r] = f16_to_f32(load_u16(blk));
        o.m[r] = 0.0f;
    });
}

}  // namespace

InterleaveKRowsFn direct_interleave_k(DType t) {
    switch (t) {
        case DType::Q4_K:
            return k4_rows<false>;
        case DType::Q5_K:
            return k4_rows<true>;
        case DType::Q6_K:
            return q6_k_rows;
        default:
            return nullptr;
    }
}

Interleave32RowsFn direct_interleave_32(DType t) {
    return t == DType::Q8_0 ? q8_0_rows : nullptr;
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
