// Quick measurements of this machine's ceilings, taken in the same run as a benchmark so the
// benchmark can report "achieved vs possible" instead of bare numbers.
#pragma once

namespace snapdoc::cpu {

// Sustained read bandwidth in GB/s: `threads` threads summing a buffer far larger than the caches.
double measure_read_bandwidth_gbs(int threads, double seconds = 0.5);

// OpenBLAS sgemm throughput in GFLOP/s on an m×k by k×n product (prefill-like shape).
double measure_sgemm_gflops(int threads, int m = 512, int n = 768, int k = 768, double seconds = 0.5);

}  // namespace snapdoc::cpu
