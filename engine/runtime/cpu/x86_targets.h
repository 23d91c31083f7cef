// Per-function instruction-set targets for the attention's vector kernels (attention_vec.cpp,
// attention_decode.cpp): they compile whatever -march says and run only where the CPU has them,
// chosen at run time. SNAPDOC_CPU_X86 is defined where these exist (x86 with GCC or Clang).
#pragma once

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SNAPDOC_CPU_X86 1
#include <immintrin.h>
#define SNAPDOC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define SNAPDOC_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
// GCC 12's AVX-512 intrinsics start from self-initialised "undefined" vectors, which -Wall reports
// at every use (fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif
