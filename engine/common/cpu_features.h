#pragma once

// CPU feature checks that every compiler the project builds with accepts. __builtin_cpu_supports
// covers most names, but clang 14 (the fuzz build) rejects "f16c", so that one reads CPUID itself.
namespace snapdoc {

// True when the CPU has the F16C half<->float conversion instructions (CPUID leaf 1, ECX bit 29).
// Always false off x86.
bool cpu_has_f16c();

// True when the CPU has AVX-VNNI, the VEX-encoded (256-bit) dpbusd / dpwssd (CPUID leaf 7 subleaf 1,
// EAX bit 4). Always false off x86.
bool cpu_has_avx_vnni();

}  // namespace snapdoc
