// Internals of quant_dot.h: the SIMD decode dot kernels of each kernel level (kernel_level.h). The
// 256-bit kernels (quant_dot_avx2.cpp) are one source compiled once per level with that level's
// target flags into its own namespace; the 512-bit ones (quant_dot_avx512.cpp) belong to the
// avx512vnni level only. Each returns nullptr for a type it has no kernel for, and every one of
// them is nullptr-only where the build cannot make them (not x86, or no GCC/Clang).
#pragma once

#include "engine/model/dtype.h"
#include "engine/runtime/cpu/quant_dot.h"

#ifndef SNAPDOC_QUANT_DOT_VARIANT
#define SNAPDOC_QUANT_DOT_VARIANT avx2  // what an IDE or a plain compile of quant_dot_avx2.cpp sees
#endif

namespace snapdoc::cpu {

namespace avx2 {
QuantDotFn quant_dot_simd(DType t);
}
namespace avxvnni {
QuantDotFn quant_dot_simd(DType t);
}
namespace avx512vnni {
QuantDotFn quant_dot_simd(DType t);
}

// The 512-bit kernels (Q2_K, Q3_K, Q6_K on the file's layout; Q4_K / Q5_K on an
// ActFormat::Blocks256Nibbles activation).
QuantDotFn quant_dot_avx512(DType t);
QuantDotFn quant_dot_avx512_nibbles(DType t);

}  // namespace snapdoc::cpu
