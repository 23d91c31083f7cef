// The AVX-512 VNNI integer GEMM kernels: quant_gemm_simd.inc with dpwssd / dpbusd on 256-bit
// registers (EVEX encoded; AVX512VL). Compiled with its own target flags (engine/CMakeLists.txt)
// and chosen at run time only where the CPU has AVX512-VNNI (kernel_level.h).
#include "engine/runtime/cpu/quant_gemm_kernels.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#include <immintrin.h>

#include "engine/runtime/cpu/quant_activation.h"

#define SNAPDOC_QG_VNNI 1

namespace snapdoc::cpu::quant_gemm_detail {
namespace {
#include "engine/runtime/cpu/quant_gemm_simd.inc"
}  // namespace

Kernels avx512vnni_kernels() {
    return {gemm_k, gemm_32};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
#else
namespace snapdoc::cpu::quant_gemm_detail {
Kernels avx512vnni_kernels() {
    return {};
}
}  // namespace snapdoc::cpu::quant_gemm_detail
#endif
