// Which instruction set the CPU backend's integer GEMM kernels (quant_gemm.h) run with, chosen at
// run time from what the CPU has. SNAPDOC_CPU_KERNELS=portable|avx2|avxvnni|avx512vnni forces a
// level, so one machine can check every path it can run (CI on an AVX2 machine tests portable and
// avx2); forcing a level the CPU lacks is an error, not a silent fallback.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace snapdoc::cpu {

// Ordered from the plainest to the fastest. Not nested: avxvnni (the VEX-encoded 256-bit VNNI of
// Alder Lake and Zen 5) is absent from some AVX-512 VNNI CPUs (Cascade Lake, Ice Lake, Zen 4), so
// each level's availability is checked on its own; every level but portable needs AVX2 + FMA + F16C.
enum class KernelLevel { Portable, Avx2, AvxVnni, Avx512Vnni };
inline constexpr KernelLevel kAllKernelLevels[] = {KernelLevel::Portable, KernelLevel::Avx2, KernelLevel::AvxVnni,
                                                   KernelLevel::Avx512Vnni};

const char* kernel_level_name(KernelLevel level);
// nullopt for a name that is none of portable, avx2, avxvnni, avx512vnni.
std::optional<KernelLevel> parse_kernel_level(std::string_view name);
// Whether this build has the level's kernels and this CPU can run them.
bool kernel_level_available(KernelLevel level);
// The best available level.
KernelLevel best_kernel_level();
// SNAPDOC_CPU_KERNELS when set (Error for an unknown or unavailable level), else best_kernel_level().
// Read on every call: cheap next to one matmul, and tests may change the variable.
KernelLevel active_kernel_level();

// The widest vectors the float kernels (attention, the f32 GEMM, the float-weight dots, the
// activation quantizer) may use: what the CPU has (AVX2 means AVX2 + FMA + F16C), capped by
// SNAPDOC_CPU_KERNELS when it forces a level (portable: none; avx2, avxvnni: AVX2; avx512vnni:
// AVX-512F where the CPU has it). A CPU with AVX-512F but no VNNI runs the avx2 integer level and
// the AVX-512 float kernels. Read once per process: these run too often to read the variable.
enum class FloatIsa { Portable, Avx2, Avx512 };
FloatIsa float_isa();
const char* float_isa_name(FloatIsa isa);

// One line for `snapdoc-cli info` and logs: the active integer level, every level this CPU and
// build can run, and the float vectors, e.g. "avx2 (available: portable avx2; float vectors avx2)".
std::string describe_cpu_kernels();

}  // namespace snapdoc::cpu
