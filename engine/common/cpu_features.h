#pragma once

// CPU feature checks that every compiler the project builds with accepts. __builtin_cpu_supports
// covers most names, but clang 14 (the fuzz build) rejects "f16c", so that one reads CPUID itself.
namespace snapdoc {

// True when the CPU has the F16C half<->float conversion instructions (CPUID leaf 1, ECX bit 29).
// Always false off x86.
bool cpu_has_f16c();

}  // namespace snapdoc
