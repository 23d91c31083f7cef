// The vector pieces of the CPU attention's online softmax: a row maximum and exp(x - m) with its
// sum, AVX-512 or AVX2 when the build targets them (-march=native), a portable loop otherwise.
// Scalar std::exp on every score was most of the old kernel's time: a 100K-token prefill of the
// demo model evaluates ~8·10^10 of them.
#pragma once

namespace snapdoc::cpu {

// max(x[0..n)); -inf when n == 0.
float row_max(const float* x, int n);

// x[j] = exp(x[j] - m) for j in [0, n); returns the sum. Relative error ~2e-7 per element; inputs
// below m - 87 (beyond float range) give exactly 0.
float exp_shift_sum(float* x, int n, float m);

// y[0..n) *= s.
void scale_row(float* y, int n, float s);

// Which instruction set the functions above were compiled for ("avx512", "avx2", "portable").
const char* attention_vector_isa();

}  // namespace snapdoc::cpu
