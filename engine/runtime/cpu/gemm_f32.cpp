#include "engine/runtime/cpu/gemm_f32.h"
#include "engine/runtime/cpu/kernel_level.h"

#include <cstddef>
#include <vector>

#include "engine/common/error.h"
#include "engine/runtime/cpu/gemm_f32_kernels.h"

namespace snapdoc::cpu {

namespace {

void gemm_portable(bool b_transposed, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc) {
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const float* ai = a + i * lda;
            float s = 0;
            if (b_transposed)
                for (int64_t p = 0; p < k; ++p) s += ai[p] * b[j * ldb + p];
            else
                for (int64_t p = 0; p < k; ++p) s += ai[p] * b[p * ldb + j];
            c[i * ldc + j] = alpha * s + (accumulate ? c[i * ldc + j] : 0.0f);
        }
}

// Per thread, grown to the largest n seen and kept: a pool thread calls this once per weight slice.
float* packed_scratch(int64_t n) {
    thread_local std::vector<float> buf;
    const std::size_t need = static_cast<std::size_t>(gemm_detail::packed_b_floats(n)) + 16;
    if (buf.size() < need) buf.resize(need);
    auto addr = reinterpret_cast<std::uintptr_t>(buf.data());
    return reinterpret_cast<float*>((addr + 63) & ~std::uintptr_t{63});
}

}  // namespace

bool gemm_f32_has_avx512() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    static const bool has = __builtin_cpu_supports("avx512f");
    return has;
#else
    return false;
#endif
}

bool gemm_f32_use_avx512() {
    return gemm_f32_has_avx512() && float_isa() == FloatIsa::Avx512;
}

void gemm_f32(GemmB layout, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc, GemmIsa isa) {
    if (m <= 0 || n <= 0) return;
    const bool b_transposed = layout == GemmB::Transposed;
    if (isa == GemmIsa::Auto) isa = gemm_f32_use_avx512() ? GemmIsa::Avx512 : GemmIsa::Portable;
    if (isa == GemmIsa::Avx512) {
        if (!gemm_f32_has_avx512())
            throw Error("gemm_f32: the AVX-512 kernel was asked for but this CPU lacks AVX-512F");
        gemm_detail::gemm_avx512(b_transposed, m, n, k, alpha, a, lda, b, ldb, accumulate, c, ldc,
                                 packed_scratch(n));
        return;
    }
    gemm_portable(b_transposed, m, n, k, alpha, a, lda, b, ldb, accumulate, c, ldc);
}

}  // namespace snapdoc::cpu
