// The AVX2 integer GEMM kernels (quant_gemm_simd.inc). Compiled with -mavx2 -mfma -mf16c and
// without AVX-512 (engine/CMakeLists.txt), so this level is what an AVX2-only CPU runs, even when
// the rest of the build targets a newer CPU; chosen at run time (kernel_level.h).
#include "engine/runtime/cpu/quant_gemm_kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu::quant_gemm_detail {
namespace {
#include "engine/runtime/cpu/quant_gemm_simd.inc"
}  // namespace

Kernels avx2_kernels() {
    return {gemm_k, gemm_32};
}

}  // namespace snapdoc::cpu::quant_gemm_detail
#else
namespace snapdoc::cpu::quant_gemm_detail {
Kernels avx2_kernels() {
    return {};
}
}  // namespace snapdoc::cpu::quant_gemm_detail
#endif
