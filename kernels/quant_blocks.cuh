// Device decoders of the GGML block types (byte layouts: engine/model/quant/block_formats.h). Each
// block is split into kLanes parts that neighbouring lanes decode, so a warp reads consecutive bytes.
// A part decodes to kGroups groups of kPer consecutive values sharing one affine map:
//   value[block start + idx[g] + i] = a[g] * q[g][i] + b[g]      (b is 0 unless kAffine)
// with a, b computed exactly as the CPU's dequantize_row computes its per-(sub-)block factors, so
// a * q + b evaluated with two roundings reproduces the CPU's value bit for bit.
//
// Loads: every block size and field offset is even, so 16-bit loads are always aligned (rows start
// at multiples of the block size from a 4-byte aligned base); types whose block size is a multiple of
// 4 (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K, IQ4_XS) also use 32-bit loads.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace snapdoc::kernels::quant {

template <int G, int V>
struct Groups {
    float a[G];
    float b[G];
    int idx[G];
    int q[G][V];
};

__device__ __forceinline__ uint32_t ld16(const uint8_t* p) { return *reinterpret_cast<const uint16_t*>(p); }
__device__ __forceinline__ uint32_t ld32_a2(const uint8_t* p) { return ld16(p) | (ld16(p + 2) << 16); }
__device__ __forceinline__ uint32_t ld32_a4(const uint8_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
__device__ __forceinline__ float ldf16(const uint8_t* p) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(ld16(p))));
}
__device__ __forceinline__ int byte_of(uint32_t w, int i) { return static_cast<int>((w >> (8 * i)) & 0xFFu); }

// ggml's kvalues_iq4nl (the 16 levels of IQ4_NL / IQ4_XS), as in block_formats.h's kIq4Values.
__device__ __forceinline__ int iq4_level(int i) {
    // The levels as int8 bytes in two 64-bit words (levels 0..7, 8..15): a select and a shift in
    // registers, no memory table.
    const uint64_t w = i < 8 ? 0xF6EADDCFBFAD9881ull : 0x7159453526190D01ull;
    return static_cast<int8_t>((w >> (8 * (i & 7))) & 0xFFu);
}

// ---- legacy 32-value blocks: 4 lanes per block, part p = qs bytes [4p, 4p + 4) (Q8_0: [8p, 8p + 8)) ----

// Values 4p..4p+3 in the low nibbles, 16+4p.. in the high nibbles of the 4 bytes in w.
__device__ __forceinline__ void nibble_groups(uint32_t w, int p, Groups<2, 4>& g) {
    g.idx[0] = 4 * p;
    g.idx[1] = 16 + 4 * p;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        g.q[0][i] = byte_of(w, i) & 0xF;
        g.q[1][i] = byte_of(w, i) >> 4;
    }
}

// Adds bit 4 from qh (bit j for value j) and subtracts `offset`.
__device__ __forceinline__ void add_fifth_bit(uint32_t qh, int offset, Groups<2, 4>& g) {
#pragma unroll
    for (int k = 0; k < 2; ++k)
#pragma unroll
        for (int i = 0; i < 4; ++i) g.q[k][i] = (g.q[k][i] | static_cast<int>(((qh >> (g.idx[k] + i)) & 1u) << 4)) - offset;
}

struct FmtQ4_0 {
    static constexpr int kValues = 32, kBytes = 18, kLanes = 4, kGroups = 2, kPer = 4;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 4>& g) {
        g.a[0] = g.a[1] = ldf16(blk);
        g.b[0] = g.b[1] = 0.0f;
        nibble_groups(ld32_a2(blk + 2 + 4 * p), p, g);
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i) g.q[k][i] -= 8;
    }
};

struct FmtQ4_1 {
    static constexpr int kValues = 32, kBytes = 20, kLanes = 4, kGroups = 2, kPer = 4;
    static constexpr bool kAffine = true;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 4>& g) {
        g.a[0] = g.a[1] = ldf16(blk);
        g.b[0] = g.b[1] = ldf16(blk + 2);
        nibble_groups(ld32_a4(blk + 4 + 4 * p), p, g);
    }
};

struct FmtQ5_0 {
    static constexpr int kValues = 32, kBytes = 22, kLanes = 4, kGroups = 2, kPer = 4;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 4>& g) {
        g.a[0] = g.a[1] = ldf16(blk);
        g.b[0] = g.b[1] = 0.0f;
        nibble_groups(ld32_a2(blk + 6 + 4 * p), p, g);
        add_fifth_bit(ld32_a2(blk + 2), 16, g);
    }
};

struct FmtQ5_1 {
    static constexpr int kValues = 32, kBytes = 24, kLanes = 4, kGroups = 2, kPer = 4;
    static constexpr bool kAffine = true;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 4>& g) {
        g.a[0] = g.a[1] = ldf16(blk);
        g.b[0] = g.b[1] = ldf16(blk + 2);
        nibble_groups(ld32_a4(blk + 8 + 4 * p), p, g);
        add_fifth_bit(ld32_a4(blk + 4), 0, g);
    }
};

struct FmtQ8_0 {
    static constexpr int kValues = 32, kBytes = 34, kLanes = 4, kGroups = 1, kPer = 8;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<1, 8>& g) {
        g.a[0] = ldf16(blk);
        g.b[0] = 0.0f;
        g.idx[0] = 8 * p;
        const uint32_t w0 = ld32_a2(blk + 2 + 8 * p), w1 = ld32_a2(blk + 6 + 8 * p);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            g.q[0][i] = static_cast<int8_t>(byte_of(w0, i));
            g.q[0][4 + i] = static_cast<int8_t>(byte_of(w1, i));
        }
    }
};

struct FmtIq4Nl {
    static constexpr int kValues = 32, kBytes = 18, kLanes = 4, kGroups = 2, kPer = 4;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 4>& g) {
        g.a[0] = g.a[1] = ldf16(blk);
        g.b[0] = g.b[1] = 0.0f;
        nibble_groups(ld32_a2(blk + 2 + 4 * p), p, g);
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i) g.q[k][i] = iq4_level(g.q[k][i]);
    }
};

// ---- 256-value super-blocks: 16 lanes per block ----

// Q2_K / Q3_K: part p covers bytes l = 4*(p%8) .. +3 of the 32-byte qs half p/8; each byte holds
// values 128*half + 32*s + l at bit shift 2s (s = 0..3), sub-block (of 16) 8*half + 2s + (p%8)/4.
struct FmtQ2_K {
    static constexpr int kValues = 256, kBytes = 84, kLanes = 16, kGroups = 4, kPer = 4;
    static constexpr bool kAffine = true;
    __device__ static void decode(const uint8_t* blk, int p, Groups<4, 4>& g) {
        const int half = p >> 3, lp = p & 7;
        const float d = ldf16(blk + 80), dmin = ldf16(blk + 82);
        const uint32_t qs = ld32_a4(blk + 16 + 32 * half + 4 * lp);
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            const int sc = blk[8 * half + 2 * s + (lp >> 2)];
            g.a[s] = __fmul_rn(d, static_cast<float>(sc & 0xF));
            g.b[s] = -__fmul_rn(dmin, static_cast<float>(sc >> 4));
            g.idx[s] = 128 * half + 32 * s + 4 * lp;
#pragma unroll
            for (int i = 0; i < 4; ++i) g.q[s][i] = (byte_of(qs, i) >> (2 * s)) & 3;
        }
    }
};

// Q3_K six-bit scale k (0..15), minus 32: low 4 bits in byte k%8 (low nibble for k < 8), top 2 bits
// at bit 2*(k/4) of byte 8 + k%4.
__device__ __forceinline__ int q3k_scale(const uint8_t* sc, int k) {
    const int low = (sc[k & 7] >> (4 * (k >> 3))) & 0xF;
    const int high = (sc[8 + (k & 3)] >> (2 * (k >> 2))) & 3;
    return (low | (high << 4)) - 32;
}

struct FmtQ3_K {
    static constexpr int kValues = 256, kBytes = 110, kLanes = 16, kGroups = 4, kPer = 4;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<4, 4>& g) {
        const int half = p >> 3, lp = p & 7;
        const float d = ldf16(blk + 108);
        const uint32_t qs = ld32_a2(blk + 32 + 32 * half + 4 * lp);
        const uint32_t hm = ld32_a2(blk + 4 * lp);  // hmask[l]: bit e/32 is value e's high bit
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            g.a[s] = __fmul_rn(d, static_cast<float>(q3k_scale(blk + 96, 8 * half + 2 * s + (lp >> 2))));
            g.b[s] = 0.0f;
            g.idx[s] = 128 * half + 32 * s + 4 * lp;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int low = (byte_of(qs, i) >> (2 * s)) & 3;
                const int high = (byte_of(hm, i) >> (4 * half + s)) & 1;
                g.q[s][i] = low - (high ? 0 : 4);
            }
        }
    }
};

// Q4_K / Q5_K six-bit scale and min of sub-block j (0..7) from the 12 packed bytes: j < 4 keeps 6
// bits in bytes j (scale) and j + 4 (min); j >= 4 keeps its low 4 bits in byte j + 4 (scale low
// nibble, min high nibble) and its top 2 bits in the top bits of bytes j - 4 (scale) and j (min).
__device__ __forceinline__ void k4_scale_min(const uint8_t* sc, int j, int& scale, int& min) {
    if (j < 4) {
        scale = sc[j] & 63;
        min = sc[j + 4] & 63;
    } else {
        scale = (sc[j + 4] & 0xF) | ((sc[j - 4] >> 6) << 4);
        min = (sc[j + 4] >> 4) | ((sc[j] >> 6) << 4);
    }
}

// Q4_K / Q5_K part p: chunk c = p/4 (64 values), bytes l = 8*(p%4) .. +7 of qs[32c ..]: low nibbles
// are values 64c + l (sub-block 2c), high nibbles 64c + 32 + l (sub-block 2c + 1).
__device__ __forceinline__ void k4_groups(const uint8_t* blk, const uint8_t* qs_base, int p, Groups<2, 8>& g) {
    const int c = p >> 2, lp = p & 3;
    const float d = ldf16(blk), dmin = ldf16(blk + 2);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int sc, mn;
        k4_scale_min(blk + 4, 2 * c + k, sc, mn);
        g.a[k] = __fmul_rn(d, static_cast<float>(sc));
        g.b[k] = -__fmul_rn(dmin, static_cast<float>(mn));
        g.idx[k] = 64 * c + 32 * k + 8 * lp;
    }
    const uint32_t w0 = ld32_a4(qs_base + 32 * c + 8 * lp), w1 = ld32_a4(qs_base + 32 * c + 8 * lp + 4);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        g.q[0][i] = byte_of(w0, i) & 0xF;
        g.q[0][4 + i] = byte_of(w1, i) & 0xF;
        g.q[1][i] = byte_of(w0, i) >> 4;
        g.q[1][4 + i] = byte_of(w1, i) >> 4;
    }
}

struct FmtQ4_K {
    static constexpr int kValues = 256, kBytes = 144, kLanes = 16, kGroups = 2, kPer = 8;
    static constexpr bool kAffine = true;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 8>& g) { k4_groups(blk, blk + 16, p, g); }
};

struct FmtQ5_K {
    static constexpr int kValues = 256, kBytes = 176, kLanes = 16, kGroups = 2, kPer = 8;
    static constexpr bool kAffine = true;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 8>& g) {
        k4_groups(blk, blk + 48, p, g);
        const int c = p >> 2, lp = p & 3;
        const uint32_t h0 = ld32_a4(blk + 16 + 8 * lp), h1 = ld32_a4(blk + 16 + 8 * lp + 4);  // qh[l]
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int h = byte_of(i < 4 ? h0 : h1, i & 3);
            g.q[0][i] |= ((h >> (2 * c)) & 1) << 4;
            g.q[1][i] |= ((h >> (2 * c + 1)) & 1) << 4;
        }
    }
};

// Q6_K part p: half h = p/8 (128 values), l = 4*(p%8) .. +3. Value 128h + 32s + l takes its low
// nibble from ql[64h + l] (s = 0, 2: low / high nibble) or ql[64h + 32 + l] (s = 1, 3) and its top 2
// bits from bits 2s of qh[32h + l]; scale sc[8h + 2s + (p%8)/4] (int8), q - 32.
struct FmtQ6_K {
    static constexpr int kValues = 256, kBytes = 210, kLanes = 16, kGroups = 4, kPer = 4;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<4, 4>& g) {
        const int h = p >> 3, lp = p & 7;
        const float d = ldf16(blk + 208);
        const uint32_t qa = ld32_a2(blk + 64 * h + 4 * lp), qb = ld32_a2(blk + 64 * h + 32 + 4 * lp);
        const uint32_t qh = ld32_a2(blk + 128 + 32 * h + 4 * lp);
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            const int sc = static_cast<int8_t>(blk[192 + 8 * h + 2 * s + (lp >> 2)]);
            g.a[s] = __fmul_rn(d, static_cast<float>(sc));
            g.b[s] = 0.0f;
            g.idx[s] = 128 * h + 32 * s + 4 * lp;
            const uint32_t ql = (s & 1) ? qb : qa;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int lo = (byte_of(ql, i) >> (4 * (s >> 1))) & 0xF;
                const int hi = (byte_of(qh, i) >> (2 * s)) & 3;
                g.q[s][i] = (lo | (hi << 4)) - 32;
            }
        }
    }
};

// IQ4_XS part p: sub-block ib = p/2 (32 values), bytes 8*(p%2) .. +7 of its 16 qs bytes: low
// nibbles are values 32ib + 8(p%2) + i, high nibbles 32ib + 16 + 8(p%2) + i.
struct FmtIq4Xs {
    static constexpr int kValues = 256, kBytes = 136, kLanes = 16, kGroups = 2, kPer = 8;
    static constexpr bool kAffine = false;
    __device__ static void decode(const uint8_t* blk, int p, Groups<2, 8>& g) {
        const int ib = p >> 1, hf = p & 1;
        const float d = ldf16(blk);
        const int low = (blk[4 + (ib >> 1)] >> (4 * (ib & 1))) & 0xF;
        const int high = (static_cast<int>(ld16(blk + 2)) >> (2 * ib)) & 3;
        const float dl = __fmul_rn(d, static_cast<float>((low | (high << 4)) - 32));
        g.a[0] = g.a[1] = dl;
        g.b[0] = g.b[1] = 0.0f;
        g.idx[0] = 32 * ib + 8 * hf;
        g.idx[1] = 32 * ib + 16 + 8 * hf;
        const uint32_t w0 = ld32_a4(blk + 8 + 16 * ib + 8 * hf), w1 = ld32_a4(blk + 8 + 16 * ib + 8 * hf + 4);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int b = byte_of(i < 4 ? w0 : w1, i & 3);
            g.q[0][i] = iq4_level(b & 0xF);
            g.q[1][i] = iq4_level(b >> 4);
        }
    }
};

}  // namespace snapdoc::kernels::quant
