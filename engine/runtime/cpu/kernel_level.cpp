#include "engine/runtime/cpu/kernel_level.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "engine/common/cpu_features.h"
#include "engine/common/error.h"
#include "engine/runtime/cpu/quant_gemm_kernels.h"

namespace snapdoc::cpu {

namespace {

// What every level but portable (and the AVX2 float kernels) needs: AVX2, FMA and F16C.
bool cpu_runs_avx2() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
#else
    return false;
#endif
}

}  // namespace

const char* kernel_level_name(KernelLevel level) {
    switch (level) {
        case KernelLevel::Portable: return "portable";
        case KernelLevel::Avx2: return "avx2";
        case KernelLevel::AvxVnni: return "avxvnni";
        case KernelLevel::Avx512Vnni: return "avx512vnni";
    }
    return "?";
}

std::optional<KernelLevel> parse_kernel_level(std::string_view name) {
    for (KernelLevel l : kAllKernelLevels)
        if (name == kernel_level_name(l)) return l;
    return std::nullopt;
}

bool kernel_level_available(KernelLevel level) {
    if (level == KernelLevel::Portable) return true;
    if (!quant_gemm_detail::kernels_built(level)) return false;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx2 = cpu_runs_avx2();
    static const bool avx512vnni = avx2 && __builtin_cpu_supports("avx512f") &&
                                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                                   __builtin_cpu_supports("avx512vnni");
    static const bool avxvnni = avx2 && cpu_has_avx_vnni();
    switch (level) {
        case KernelLevel::Avx2: return avx2;
        case KernelLevel::AvxVnni: return avxvnni;
        case KernelLevel::Avx512Vnni: return avx512vnni;
        case KernelLevel::Portable: return true;
    }
    return false;
#else
    return false;
#endif
}

KernelLevel best_kernel_level() {
    for (KernelLevel l : {KernelLevel::Avx512Vnni, KernelLevel::AvxVnni, KernelLevel::Avx2})
        if (kernel_level_available(l)) return l;
    return KernelLevel::Portable;
}

KernelLevel active_kernel_level() {
    const char* forced = std::getenv("SNAPDOC_CPU_KERNELS");
    if (forced == nullptr || *forced == '\0') return best_kernel_level();
    const auto level = parse_kernel_level(forced);
    if (!level)
        throw Error(std::string("SNAPDOC_CPU_KERNELS=") + forced + ": expected portable, avx2, avxvnni or avx512vnni");
    if (!kernel_level_available(*level))
        throw Error(std::string("SNAPDOC_CPU_KERNELS=") + forced +
                    ": this CPU (or this build) cannot run those kernels; the best here is " +
                    kernel_level_name(best_kernel_level()));
    return *level;
}

namespace {

FloatIsa cpu_float_isa() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    if (!cpu_runs_avx2()) return FloatIsa::Portable;
    return __builtin_cpu_supports("avx512f") ? FloatIsa::Avx512 : FloatIsa::Avx2;
#else
    return FloatIsa::Portable;
#endif
}

FloatIsa capped_float_isa() {
    const FloatIsa cpu = cpu_float_isa();
    const char* forced = std::getenv("SNAPDOC_CPU_KERNELS");
    // An unknown or unavailable name is reported by active_kernel_level(), which every matmul calls.
    const auto level = forced ? parse_kernel_level(forced) : std::nullopt;
    if (!level) return cpu;
    switch (*level) {
        case KernelLevel::Portable: return FloatIsa::Portable;
        case KernelLevel::Avx2:
        case KernelLevel::AvxVnni: return std::min(cpu, FloatIsa::Avx2);
        case KernelLevel::Avx512Vnni: return cpu;
    }
    return cpu;
}

}  // namespace

FloatIsa float_isa() {
    static const FloatIsa isa = capped_float_isa();
    return isa;
}

const char* float_isa_name(FloatIsa isa) {
    switch (isa) {
        case FloatIsa::Portable: return "portable";
        case FloatIsa::Avx2: return "avx2";
        case FloatIsa::Avx512: return "avx512";
    }
    return "?";
}

std::string describe_cpu_kernels() {
    std::string available;
    for (KernelLevel l : kAllKernelLevels)
        if (kernel_level_available(l)) available += std::string(available.empty() ? "" : " ") + kernel_level_name(l);
    return std::string(kernel_level_name(active_kernel_level())) + " (available: " + available +
           "; float vectors " + float_isa_name(float_isa()) + ")";
}

}  // namespace snapdoc::cpu
