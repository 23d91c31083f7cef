// The vector pieces of the CPU attention's online softmax: a row maximum and exp(x - m) with its
// sum. Scalar std::exp on every score was most of the old kernel's time: a 100K-token prefill of
// the demo model evaluates ~8·10^10 of them. On x86 the AVX-512 or AVX2 version is chosen at run
// time from what the CPU supports, capped by a forced kernel level (kernel_level.h: float_isa); elsewhere,
// and on CPUs without AVX2, a portable loop runs.
#pragma once

#include <string>
#include <vector>

namespace snapdoc::cpu {

// max(x[0..n)); -inf when n == 0.
float row_max(const float* x, int n);

// x[j] = exp(x[j] - m) for j in [0, n); returns the sum. Relative error ~2e-7 per element; inputs
// below m - 87 (beyond float range) give exactly 0.
float exp_shift_sum(float* x, int n, float m);

// y[0..n) *= s.
void scale_row(float* y, int n, float s);

// The instruction set in use ("avx512", "avx2" or "portable"), and those this CPU can run.
const char* attention_vector_isa();
std::vector<std::string> attention_vector_isas();

// Selects one of attention_vector_isas() ("auto": the best); false (and no change) when this CPU
// cannot run it. For tests and benchmarks; not thread-safe against running attention.
bool use_attention_vector_isa(const std::string& name);

}  // namespace snapdoc::cpu
