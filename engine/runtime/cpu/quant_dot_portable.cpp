// Portable quantized dots: each weight block is decoded to integer levels plus its scales
// (x = d * v + m for 32-value blocks, x = d * scale_g * v - dmin * min_g over 16-value groups for
// super-blocks), then dotted with the 8-bit activation in integers.
#include <cassert>

#include "engine/model/quant/block_formats.h"
#include "engine/runtime/cpu/quant_activation.h"
#include "engine/runtime/cpu/quant_dot.h"
#include "engine/runtime/cpu/quant_dot_variants.h"

namespace snapdoc::cpu {

namespace {

using namespace quant;

float half_at(const uint8_t* p) {
    return f16_to_f32(load_u16(p));
}

// ---- 32-value blocks: levels v and (d, m) with x = d * v + m.
struct Block32 {
    int v[32];
    float d;
    float m = 0.0f;
};

void nibbles(const uint8_t* qs, int offset, int* v) {
    for (int j = 0; j < 16; ++j) {
        v[j] = (qs[j] & 0xF) - offset;
        v[j + 16] = (qs[j] >> 4) - offset;
    }
}

void add_high_bits(uint32_t qh, int* v) {
    for (int j = 0; j < 32; ++j) v[j] += static_cast<int>((qh >> j) & 1u) << 4;
}

void decode_q4_0(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    nibbles(b + 2, 8, o.v);
}
void decode_q4_1(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    o.m = half_at(b + 2);
    nibbles(b + 4, 0, o.v);
}
void decode_q5_0(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    nibbles(b + 6, 0, o.v);
    add_high_bits(load_u32(b + 2), o.v);
    for (int& x : o.v) x -= 16;
}
void decode_q5_1(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    o.m = half_at(b + 2);
    nibbles(b + 8, 0, o.v);
    add_high_bits(load_u32(b + 4), o.v);
}
void decode_q8_0(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    for (int j = 0; j < 32; ++j) o.v[j] = static_cast<int8_t>(b[2 + j]);
}
void decode_iq4_nl(const uint8_t* b, Block32& o) {
    o.d = half_at(b);
    nibbles(b + 2, 0, o.v);
    for (int& x : o.v) x = kIq4Values[x];
}

template <void (*Decode)(const uint8_t*, Block32&), int Bytes>
float dot32(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock32*>(act);
    float sum = 0.0f;
    Block32 blk;
    for (int64_t b = 0; b < n / 32; ++b, row += Bytes) {
        Decode(row, blk);
        int dot = 0;
        for (int j = 0; j < 32; ++j) dot += blk.v[j] * a[b].q[j];
        sum += blk.d * a[b].d * static_cast<float>(dot) + blk.m * a[b].d_sum;
    }
    return sum;
}

// ---- 256-value super-blocks: levels v, per-16 integer scales and mins, x = d*scale*v - dmin*min.
struct Block256 {
    int v[256];
    int scale[16];
    int min[16] = {};
    float d;
    float dmin = 0.0f;
};

int two_bit(const uint8_t* qs, int e) {
    return (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

void decode_q2_k(const uint8_t* b, Block256& o) {
    o.d = half_at(b + q2k::kD);
    o.dmin = half_at(b + q2k::kDmin);
    for (int g = 0; g < 16; ++g) {
        o.scale[g] = b[q2k::kScales + g] & 0xF;
        o.min[g] = b[q2k::kScales + g] >> 4;
    }
    for (int e = 0; e < 256; ++e) o.v[e] = two_bit(b + q2k::kQs, e);
}
void decode_q3_k(const uint8_t* b, Block256& o) {
    o.d = half_at(b + q3k::kD);
    int8_t s[16];
    unpack_q3k_scales(b + q3k::kScales, s);
    for (int g = 0; g < 16; ++g) o.scale[g] = s[g];
    for (int e = 0; e < 256; ++e) {
        const int high = (b[q3k::kHmask + e % 32] >> (e / 32)) & 1;
        o.v[e] = two_bit(b + q3k::kQs, e) - (high ? 0 : 4);
    }
}
// Q4_K and Q5_K share scales and low nibbles; Q5_K adds a fifth bit.
void decode_k4_common(const uint8_t* b, const uint8_t* qs, Block256& o) {
    o.d = half_at(b + q4k::kD);
    o.dmin = half_at(b + q4k::kDmin);
    const ScaleMin8 sm = unpack_scale_min_k4(b + q4k::kScales);
    for (int g = 0; g < 16; ++g) {
        o.scale[g] = sm.scale[g / 2];
        o.min[g] = sm.min[g / 2];
    }
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) {
            o.v[64 * c + l] = qs[32 * c + l] & 0xF;
            o.v[64 * c + 32 + l] = qs[32 * c + l] >> 4;
        }
}
void decode_q4_k(const uint8_t* b, Block256& o) {
    decode_k4_common(b, b + q4k::kQs, o);
}
void decode_q5_k(const uint8_t* b, Block256& o) {
    decode_k4_common(b, b + q5k::kQs, o);
    for (int e = 0; e < 256; ++e) o.v[e] += ((b[q5k::kQh + e % 32] >> (e / 32)) & 1) << 4;
}
void decode_q6_k(const uint8_t* b, Block256& o) {
    o.d = half_at(b + q6k::kD);
    for (int g = 0; g < 16; ++g) o.scale[g] = static_cast<int8_t>(b[q6k::kScales + g]);
    for (int e = 0; e < 256; ++e) {
        const int h = e / 128, k = (e % 128) / 32, l = e % 32;
        const int low = (b[q6k::kQl + 64 * h + 32 * (k % 2) + l] >> (4 * (k / 2))) & 0xF;
        const int high = (b[q6k::kQh + 32 * h + l] >> (2 * k)) & 3;
        o.v[e] = (low | (high << 4)) - 32;
    }
}
void decode_iq4_xs(const uint8_t* b, Block256& o) {
    o.d = half_at(b + iq4xs::kD);
    for (int g = 0; g < 16; ++g) o.scale[g] = iq4xs_scale(b, g / 2);
    for (int ib = 0; ib < 8; ++ib)
        for (int j = 0; j < 16; ++j) {
            const uint8_t q = b[iq4xs::kQs + 16 * ib + j];
            o.v[32 * ib + j] = kIq4Values[q & 0xF];
            o.v[32 * ib + 16 + j] = kIq4Values[q >> 4];
        }
}

template <void (*Decode)(const uint8_t*, Block256&), int Bytes>
float dot256(const uint8_t* row, const void* act, int64_t n) {
    const auto* a = static_cast<const ActBlock256*>(act);
    float sum = 0.0f;
    Block256 blk;
    for (int64_t b = 0; b < n / 256; ++b, row += Bytes) {
        Decode(row, blk);
        int dot = 0, mins = 0;
        for (int g = 0; g < 16; ++g) {
            int s = 0;
            for (int i = 0; i < 16; ++i) s += blk.v[16 * g + i] * a[b].q[16 * g + i];
            dot += blk.scale[g] * s;
            mins += blk.min[g] * a[b].sums16[g];
        }
        sum += blk.d * a[b].d * static_cast<float>(dot) - blk.dmin * a[b].d * static_cast<float>(mins);
    }
    return sum;
}

QuantDotFn portable_fn(DType t) {
    switch (t) {
        case DType::Q4_0:
            return dot32<decode_q4_0, kQ4_0Bytes>;
        case DType::Q4_1:
            return dot32<decode_q4_1, kQ4_1Bytes>;
        case DType::Q5_0:
            return dot32<decode_q5_0, kQ5_0Bytes>;
        case DType::Q5_1:
            return dot32<decode_q5_1, kQ5_1Bytes>;
        case DType::Q8_0:
            return dot32<decode_q8_0, kQ8_0Bytes>;
        case DType::IQ4_NL:
            return dot32<decode_iq4_nl, kIq4NlBytes>;
        case DType::Q2_K:
            return dot256<decode_q2_k, kQ2_KBytes>;
        case DType::Q3_K:
            return dot256<decode_q3_k, kQ3_KBytes>;
        case DType::Q4_K:
            return dot256<decode_q4_k, kQ4_KBytes>;
        case DType::Q5_K:
            return dot256<decode_q5_k, kQ5_KBytes>;
        case DType::Q6_K:
            return dot256<decode_q6_k, kQ6_KBytes>;
        case DType::IQ4_XS:
            return dot256<decode_iq4_xs, kIq4XsBytes>;
        case DType::F32:
        case DType::F16:
        case DType::BF16:
            break;
    }
    assert(false && "quant_dot on a non-block dtype");
    return nullptr;
}

}  // namespace

float quant_dot_portable(DType t, const uint8_t* row, const void* act, int64_t n) {
    return portable_fn(t)(row, act, n);
}

QuantDotFn quant_dot_fn(DType t, KernelLevel level) {
    QuantDotFn simd = nullptr;
    switch (level) {
        case KernelLevel::Avx512Vnni:
            simd = quant_dot_avx512(t);
            if (!simd) simd = avx512vnni::quant_dot_simd(t);
            break;
        case KernelLevel::AvxVnni: simd = avxvnni::quant_dot_simd(t); break;
        case KernelLevel::Avx2: simd = avx2::quant_dot_simd(t); break;
        case KernelLevel::Portable: break;
    }
    return simd ? simd : portable_fn(t);
}

DecodeDot decode_dot(DType t, KernelLevel level) {
    if (level == KernelLevel::Avx512Vnni)
        if (const QuantDotFn own = quant_dot_avx512_nibbles(t)) return {own, ActFormat::Blocks256Nibbles};
    return {quant_dot_fn(t, level), act_format(t)};
}

DecodeDot decode_dot(DType t) {
    return decode_dot(t, active_kernel_level());
}

float quant_dot(DType t, const uint8_t* row, const void* act, int64_t n) {
    return quant_dot_fn(t, active_kernel_level())(row, act, n);
}

}  // namespace snapdoc::cpu
