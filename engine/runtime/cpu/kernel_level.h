// Which instruction set the CPU backend's integer GEMM kernels (quant_gemm.h) run with, chosen at
// run time from what the CPU has. SNAPDOC_CPU_KERNELS=portable|avx2|avx512vnni forces a level, so
// one machine can check every path it can run (CI on an AVX2 machine tests portable and avx2);
// forcing a level the CPU lacks is an error, not a silent fallback.
#pragma once

#include <optional>
#include <string_view>

namespace snapdoc::cpu {

// Ordered: each level's CPU features include the previous level's.
enum class KernelLevel { Portable, Avx2, Avx512Vnni };

const char* kernel_level_name(KernelLevel level);
// nullopt for a name that is none of portable, avx2, avx512vnni.
std::optional<KernelLevel> parse_kernel_level(std::string_view name);
// Whether this build has the level's kernels and this CPU can run them.
bool kernel_level_available(KernelLevel level);
// The best available level.
KernelLevel best_kernel_level();
// SNAPDOC_CPU_KERNELS when set (Error for an unknown or unavailable level), else best_kernel_level().
// Read on every call: cheap next to one matmul, and tests may change the variable.
KernelLevel active_kernel_level();

}  // namespace snapdoc::cpu
