#include "engine/runtime/cpu/quant_gemm.h"

#include <algorithm>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_gemm_interleaved.h"
#include "engine/runtime/cpu/quant_gemm_kernels.h"
#include "engine/runtime/cpu/quant_gemm_wide.h"

namespace snapdoc::cpu {

namespace {

using namespace quant;
using quant_gemm_detail::Unpacked32;
using quant_gemm_detail::UnpackedK;

float half_at(const uint8_t* p) {
    return f16_to_f32(load_u16(p));
}

// ---- Super-blocks: levels q[e] (unsigned), then per-16-value scales and mins.

void set_groups(UnpackedK& o, const int* scale16, const int* min16) {
    for (int c = 0; c < 8; ++c)
        for (int l = 0; l < 16; ++l) o.scale[c][l] = static_cast<int16_t>(scale16[2 * c + l / 8]);
    for (int g = 0; g < 16; ++g) o.min[g] = static_cast<int16_t>(min16[g]);
}

// Q4_K / Q5_K: values 64c..64c+31 in the low nibbles of qs[32c..], 64c+32.. in the high ones.
void unpack_k4(const uint8_t* b, const uint8_t* qs, UnpackedK& o) {
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) {
            o.q[64 * c + l] = qs[32 * c + l] & 0xF;
            o.q[64 * c + 32 + l] = qs[32 * c + l] >> 4;
        }
    const ScaleMin8 sm = unpack_scale_min_k4(b + q4k::kScales);
    int scale[16], min[16];
    for (int g = 0; g < 16; ++g) {
        scale[g] = sm.scale[g / 2];
        min[g] = sm.min[g / 2];
    }
    set_groups(o, scale, min);
    o.d = half_at(b + q4k::kD);
    o.dmin = half_at(b + q4k::kDmin);
}

void unpack_q4_k(const uint8_t* b, UnpackedK& o) {
    unpack_k4(b, b + q4k::kQs, o);
}

void unpack_q5_k(const uint8_t* b, UnpackedK& o) {
    unpack_k4(b, b + q5k::kQs, o);
    for (int e = 0; e < 256; ++e) o.q[e] |= ((b[q5k::kQh + e % 32] >> (e / 32)) & 1) << 4;
}

// Levels stored with an offset (Q6_K: q − 32, Q3_K: q − 4) keep q unsigned; the offset becomes a
// min of offset · scale with dmin = d.
void set_offset_groups(UnpackedK& o, const int* scale16, int offset, float d) {
    int min[16];
    for (int g = 0; g < 16; ++g) min[g] = offset * scale16[g];
    set_groups(o, scale16, min);
    o.d = d;
    o.dmin = d;
}

void unpack_q6_k(const uint8_t* b, UnpackedK& o) {
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < 4; ++k)
            for (int l = 0; l < 32; ++l) {
                const int low = (b[q6k::kQl + 64 * h + 32 * (k % 2) + l] >> (4 * (k / 2))) & 0xF;
                const int high = (b[q6k::kQh + 32 * h + l] >> (2 * k)) & 3;
                o.q[128 * h + 32 * k + l] = static_cast<uint8_t>(low | (high << 4));
            }
    int scale[16];
    for (int g = 0; g < 16; ++g) scale[g] = static_cast<int8_t>(b[q6k::kScales + g]);
    set_offset_groups(o, scale, 32, half_at(b + q6k::kD));
}

// Q2_K / Q3_K: value e in qs byte 32·(e/128) + e%32 at bit shift 2·((e%128)/32).
void two_bit_levels(const uint8_t* qs, UnpackedK& o) {
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 32; ++l) o.q[128 * h + 32 * j + l] = (qs[32 * h + l] >> (2 * j)) & 3;
}

void unpack_q3_k(const uint8_t* b, UnpackedK& o) {
    two_bit_levels(b + q3k::kQs, o);
    for (int e = 0; e < 256; ++e) o.q[e] |= ((b[q3k::kHmask + e % 32] >> (e / 32)) & 1) << 2;
    int8_t s[16];
    unpack_q3k_scales(b + q3k::kScales, s);
    int scale[16];
    for (int g = 0; g < 16; ++g) scale[g] = s[g];
    set_offset_groups(o, scale, 4, half_at(b + q3k::kD));
}

void unpack_q2_k(const uint8_t* b, UnpackedK& o) {
    two_bit_levels(b + q2k::kQs, o);
    int scale[16], min[16];
    for (int g = 0; g < 16; ++g) {
        scale[g] = b[q2k::kScales + g] & 0xF;
        min[g] = b[q2k::kScales + g] >> 4;
    }
    set_groups(o, scale, min);
    o.d = half_at(b + q2k::kD);
    o.dmin = half_at(b + q2k::kDmin);
}

// ---- 32-value blocks: signed levels (value j in the low nibble of byte j, j + 16 in the high one).

void nibbles(const uint8_t* qs, int offset, Unpacked32& o) {
    for (int j = 0; j < 16; ++j) {
        o.q[j] = static_cast<int8_t>((qs[j] & 0xF) - offset);
        o.q[j + 16] = static_cast<int8_t>((qs[j] >> 4) - offset);
    }
}

void fifth_bits(uint32_t qh, int offset, Unpacked32& o) {
    for (int j = 0; j < 32; ++j) o.q[j] = static_cast<int8_t>(o.q[j] + (((qh >> j) & 1u) << 4) - offset);
}

void unpack_q4_0(const uint8_t* b, Unpacked32& o) {
    nibbles(b + 2, 8, o);
    o.d = half_at(b);
    o.m = 0.0f;
}
void unpack_q4_1(const uint8_t* b, Unpacked32& o) {
    nibbles(b + 4, 0, o);
    o.d = half_at(b);
    o.m = half_at(b + 2);
}
void unpack_q5_0(const uint8_t* b, Unpacked32& o) {
    nibbles(b + 6, 0, o);
    fifth_bits(load_u32(b + 2), 16, o);
    o.d = half_at(b);
    o.m = 0.0f;
}
void unpack_q5_1(const uint8_t* b, Unpacked32& o) {
    nibbles(b + 8, 0, o);
    fifth_bits(load_u32(b + 4), 0, o);
    o.d = half_at(b);
    o.m = half_at(b + 2);
}
void unpack_q8_0(const uint8_t* b, Unpacked32& o) {
    std::memcpy(o.q, b + 2, 32);
    o.d = half_at(b);
    o.m = 0.0f;
}
void unpack_iq4_nl(const uint8_t* b, Unpacked32& o) {
    for (int j = 0; j < 16; ++j) {
        o.q[j] = kIq4Values[b[2 + j] & 0xF];
        o.q[j + 16] = kIq4Values[b[2 + j] >> 4];
    }
    o.d = half_at(b);
    o.m = 0.0f;
}

using UnpackKFn = void (*)(const uint8_t*, UnpackedK&);
using Unpack32Fn = void (*)(const uint8_t*, Unpacked32&);

UnpackKFn unpack_k_fn(DType t) {
    switch (t) {
        case DType::Q2_K: return unpack_q2_k;
        case DType::Q3_K: return unpack_q3_k;
        case DType::Q4_K: return unpack_q4_k;
        case DType::Q5_K: return unpack_q5_k;
        case DType::Q6_K: return unpack_q6_k;
        default: return nullptr;
    }
}

Unpack32Fn unpack_32_fn(DType t) {
    switch (t) {
        case DType::Q4_0: return unpack_q4_0;
        case DType::Q4_1: return unpack_q4_1;
        case DType::Q5_0: return unpack_q5_0;
        case DType::Q5_1: return unpack_q5_1;
        case DType::Q8_0: return unpack_q8_0;
        case DType::IQ4_NL: return unpack_iq4_nl;
        default: return nullptr;
    }
}

quant_gemm_detail::Kernels kernels(KernelLevel level) {
    if (level == KernelLevel::Avx2) return quant_gemm_detail::avx2_kernels();
    return quant_gemm_detail::portable_kernels();
}

// Weight rows unpacked per chunk: about 192 KiB, so a chunk stays in L2 while every activation
// tile streams past it (an even count: the kernels take weight rows in pairs).
template <class U>
int64_t chunk_rows(int64_t blocks_per_row, int64_t budget = int64_t{192} << 10) {
    const int64_t bytes = blocks_per_row * static_cast<int64_t>(sizeof(U));
    return std::clamp<int64_t>(budget / std::max<int64_t>(1, bytes), 2, 64) & ~int64_t{1};
}

// Per thread, grown to the largest chunk seen and kept (one per form: a pool thread runs one chunk
// at a time).
template <class U>
U* scratch(std::size_t n) {
    thread_local std::vector<U> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

struct Rows {
    const uint8_t* data;
    std::size_t row_bytes;
    int block_bytes;
    int64_t count;
};

// Unpacks the weight rows a chunk at a time (nb blocks each) and hands each chunk to
// gemm(unpacked, rows in chunk, first row).
// mc: rows per chunk (chunk_rows<U> unless given).
template <class U, class Gemm>
void by_chunks(void (*unpack)(const uint8_t*, U&), const Rows& w, int64_t nb, const Gemm& gemm, int64_t mc = 0) {
    if (mc == 0) mc = chunk_rows<U>(nb);
    U* u = scratch<U>(static_cast<std::size_t>(mc * nb));
    for (int64_t r0 = 0; r0 < w.count; r0 += mc) {
        const int64_t m = std::min(mc, w.count - r0);
        for (int64_t r = 0; r < m; ++r)
            for (int64_t b = 0; b < nb; ++b) unpack(w.data + (r0 + r) * w.row_bytes + b * w.block_bytes, u[r * nb + b]);
        gemm(u, static_cast<int>(m), r0);
    }
}

// The same for the interleaved kernels: each chunk (a multiple of 16 rows) is made into 16-row
// groups (quant_gemm_interleaved.h) — straight from the file's bytes where the type has a direct
// interleaver, else unpacked 16 rows at a time and interleaved — then handed to gemm(groups, rows in
// chunk, first row).
template <class U, class I, class Gemm>
void by_groups(void (*unpack)(const uint8_t*, U&), void (*interleave)(const U*, int, int64_t, I*),
               void (*direct)(const uint8_t*, std::size_t, int, int64_t, I*), const Rows& w, int64_t nb,
               const Gemm& gemm) {
    constexpr int64_t kRows = quant_gemm_detail::kInterleavedRows;
    const int64_t group_bytes = nb * static_cast<int64_t>(sizeof(I));
    const int64_t mc =
        kRows * std::clamp<int64_t>((int64_t{192} << 10) / std::max<int64_t>(1, group_bytes), 1, 4);
    U* u = direct ? nullptr : scratch<U>(static_cast<std::size_t>(kRows * nb));
    I* groups = scratch<I>(static_cast<std::size_t>(mc / kRows * nb));
    for (int64_t r0 = 0; r0 < w.count; r0 += mc) {
        const int64_t m = std::min(mc, w.count - r0);
        for (int64_t g0 = 0; g0 < m; g0 += kRows) {
            const int count = static_cast<int>(std::min(kRows, m - g0));
            const uint8_t* first = w.data + (r0 + g0) * w.row_bytes;
            I* group = groups + g0 / kRows * nb;
            if (direct) {
                direct(first, w.row_bytes, count, nb, group);
                continue;
            }
            for (int r = 0; r < count; ++r)
                for (int64_t b = 0; b < nb; ++b)
                    unpack(first + r * w.row_bytes + b * w.block_bytes, u[r * nb + b]);
            interleave(u, count, nb, group);
        }
        gemm(groups, static_cast<int>(m), r0);
    }
}

// The VNNI levels: interleaved 16-row groups (quant_gemm_avx512vnni.cpp, or in 8-row halves
// quant_gemm_avxvnni.cpp).
void interleaved_gemm(const quant_gemm_detail::InterleavedKernels& k, DType t, const Rows& weights, int64_t in,
                      const uint8_t* act, std::size_t act_stride, int n, float* y, int64_t ldy) {
    using namespace quant_gemm_detail;
    if (const UnpackKFn unpack = unpack_k_fn(t)) {
        const int64_t nb = in / kSuperBlock;
        by_groups(unpack, interleave_k16, direct_interleave_k(t), weights, nb,
                  [&, group32 = t == DType::Q4_K || t == DType::Q5_K](const InterleavedK16* g, int m, int64_t r0) {
                      k.k(g, m, nb, group32, act, act_stride, n, y + r0, ldy);
                  });
        return;
    }
    const Unpack32Fn unpack = unpack_32_fn(t);
    const int64_t nb = in / kLegacyBlock;
    // The kernel multiplies unsigned activation bytes: the rows converted once per call.
    const std::size_t unsigned_stride = static_cast<std::size_t>(nb) * sizeof(ActBlock32);
    uint8_t* unsigned_act = scratch<uint8_t>(unsigned_stride * static_cast<std::size_t>(n));
    to_unsigned_levels(act, act_stride, n, nb, unsigned_act);
    const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
    by_groups(unpack, interleave_32x16, direct_interleave_32(t), weights, nb,
              [&](const Interleaved32x16* g, int m, int64_t r0) {
                  k.b32(g, m, nb, has_min, unsigned_act, unsigned_stride, n, y + r0, ldy);
              });
}

// ---- The 16-bit activation GEMM's weights: each unpacked block widened to i16 once per chunk.

void widen_k(const UnpackedK* u, int64_t count, quant_gemm_detail::WideK* o) {
    for (int64_t b = 0; b < count; ++b) {
        for (int e = 0; e < 256; ++e)
            o[b].w[e] = static_cast<int16_t>(u[b].scale[e / 32][8 * ((e % 32) / 16)] * u[b].q[e]);
        for (int g = 0; g < 16; ++g) o[b].min[g] = static_cast<float>(u[b].min[g]);
        o[b].d = u[b].d;
        o[b].dmin = u[b].dmin;
    }
}

void widen_32(const Unpacked32* u, int64_t count, quant_gemm_detail::Wide32* o) {
    for (int64_t b = 0; b < count; ++b) {
        for (int e = 0; e < 32; ++e) o[b].w[e] = u[b].q[e];
        o[b].d = u[b].d;
        o[b].m = u[b].m;
    }
}

// Chunks of 32 values between the kernel's i32-to-float steps (bounds in quant_gemm_kernels.h):
// Q6_K's widened levels reach 63·128, the other K-quants' at most 31·63.
int wide_flush_chunks(DType t) {
    return t == DType::Q6_K ? 2 : 8;
}

// Widened rows per chunk: every activation row streams past each chunk once, and at 16 bits they
// are twice the 8-bit bytes, so the chunks are sized to ~384 KiB of widened rows (still in a 1 MiB
// L2 with the unpacked copy): the FFN down projection's 8192-value rows got 10 per chunk at the
// 8-bit budget, and streamed 8 MiB of activations per 10 rows.
template <class Wide>
int64_t wide_chunk_rows(int64_t nb) {
    return chunk_rows<Wide>(nb, int64_t{384} << 10);
}

}  // namespace

bool quant_gemm_wide_available(KernelLevel level) {
    if (level == KernelLevel::Portable) return true;
    return level == KernelLevel::Avx2 && kernel_level_available(level) &&
           quant_gemm_detail::avx2_wide_kernels().k != nullptr;
}

WideFormat wide_format(DType t) {
    return unpack_k_fn(t) ? WideFormat::Blocks256 : WideFormat::Blocks32;
}

void quant_gemm_wide(KernelLevel level, DType t, const uint8_t* w, std::size_t row_bytes, int64_t rows, int64_t in,
                     const uint8_t* act, int n, float* y, int64_t ldy) {
    using namespace quant_gemm_detail;
    if (!quant_gemm_wide_available(level))
        throw Error(std::string("quant_gemm_wide: no 16-bit activation kernels for ") + kernel_level_name(level));
    if (!quant_gemm_supports(t))
        throw Error(std::string("quant_gemm_wide: no integer kernel for ") + std::string(dtype_name(t)));
    const WideKernels k = level == KernelLevel::Avx2 ? avx2_wide_kernels() : portable_wide_kernels();
    const std::size_t act_stride = wide_act_row_bytes(wide_format(t), in);
    const Rows weights{w, row_bytes, dtype_block_bytes(t), rows};
    if (const UnpackKFn unpack = unpack_k_fn(t)) {
        const int64_t nb = in / kSuperBlock;
        const int flush = wide_flush_chunks(t);
        by_chunks(unpack, weights, nb, [&](const UnpackedK* u, int m, int64_t r0) {
            WideK* wide = scratch<WideK>(static_cast<std::size_t>(m * nb));
            widen_k(u, m * nb, wide);
            k.k(wide, m, nb, flush, act, act_stride, n, y + r0, ldy);
        }, wide_chunk_rows<WideK>(nb));
        return;
    }
    const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
    const int64_t nb = in / kLegacyBlock;
    by_chunks(unpack_32_fn(t), weights, nb, [&](const Unpacked32* u, int m, int64_t r0) {
        Wide32* wide = scratch<Wide32>(static_cast<std::size_t>(m * nb));
        widen_32(u, m * nb, wide);
        k.b32(wide, m, nb, has_min, act, act_stride, n, y + r0, ldy);
    }, wide_chunk_rows<Wide32>(nb));
}

bool quant_gemm_supports(DType t) {
    return unpack_k_fn(t) != nullptr || unpack_32_fn(t) != nullptr;
}

void quant_gemm(KernelLevel level, DType t, const uint8_t* w, std::size_t row_bytes, int64_t rows, int64_t in,
                const uint8_t* act, int n, float* y, int64_t ldy) {
    if (!kernel_level_available(level))
        throw Error(std::string("quant_gemm: the ") + kernel_level_name(level) + " kernels cannot run here");
    if (!quant_gemm_supports(t))
        throw Error(std::string("quant_gemm: no integer kernel for ") + std::string(dtype_name(t)));
    const std::size_t act_stride = act_row_bytes(act_format(t), in);
    const Rows weights{w, row_bytes, dtype_block_bytes(t), rows};
    if (level == KernelLevel::Avx512Vnni || level == KernelLevel::AvxVnni) {
        interleaved_gemm(level == KernelLevel::Avx512Vnni ? quant_gemm_detail::avx512_interleaved_kernels()
                                                          : quant_gemm_detail::avxvnni_interleaved_kernels(),
                         t, weights, in, act, act_stride, n, y, ldy);
        return;
    }
    const quant_gemm_detail::Kernels k = kernels(level);
    if (const UnpackKFn unpack = unpack_k_fn(t)) {
        const int64_t nb = in / kSuperBlock;
        by_chunks(unpack, weights, nb, [&](const UnpackedK* u, int m, int64_t r0) {
            k.k(u, m, nb, act, act_stride, n, y + r0, ldy);
        });
        return;
    }
    const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
    const int64_t nb = in / kLegacyBlock;
    by_chunks(unpack_32_fn(t), weights, nb, [&](const Unpacked32* u, int m, int64_t r0) {
        k.b32(u, m, nb, has_min, act, act_stride, n, y + r0, ldy);
    });
}

}  // namespace snapdoc::cpu
