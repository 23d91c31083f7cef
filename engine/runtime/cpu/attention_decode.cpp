// Which decode tiles run (attention_decode_kernels.h): those of the attention vector ISA in use
// (attention_vec.h: the CPU's best, or the one a test or bench forced), for head sizes it serves,
// else the portable ones.
#include "engine/runtime/cpu/attention_decode.h"

#include <cstring>

#include "engine/runtime/cpu/attention_decode_kernels.h"
#include "engine/runtime/cpu/attention_vec.h"

namespace snapdoc::cpu {

namespace {

decode_tiles::Kernels tiles_for(int hd) {
    const char* isa = attention_vector_isa();
    if (std::strcmp(isa, "avx512") == 0 && decode_tiles::avx512_supports(hd))
        if (const decode_tiles::Kernels k = decode_tiles::avx512_kernels(); k.scores) return k;
    if (std::strcmp(isa, "portable") != 0 && decode_tiles::avx2_supports(hd))
        if (const decode_tiles::Kernels k = decode_tiles::avx2_kernels(); k.scores) return k;
    return decode_tiles::portable_kernels();
}

}  // namespace

bool decode_tile_available(int hd) {
    return hd >= 1 && hd <= decode_tiles::kPortableMaxHeadDim;
}

void decode_scores(const float* q, int m, int hd, const float* k32, const uint16_t* k16, int t0, int kt,
                   float scale, float* s, int s_stride) {
    tiles_for(hd).scores(q, m, hd, k32, k16, t0, kt, scale, s, s_stride);
}

void decode_values(const float* s, int s_stride, const TileRange* seen, int m, int hd, const float* v32,
                   const uint16_t* v16, int t0, int kt, float* acc) {
    tiles_for(hd).values(s, s_stride, seen, m, hd, v32, v16, t0, kt, acc);
}

}  // namespace snapdoc::cpu
