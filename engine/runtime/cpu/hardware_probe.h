// Quick measurements of this machine's ceilings, taken in the same run as a benchmark so the
// benchmark can report "achieved vs possible" instead of bare numbers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace snapdoc::cpu {

// Sustained read bandwidth in GB/s: `threads` threads summing a buffer far larger than the caches.
double measure_read_bandwidth_gbs(int threads, double seconds = 0.5);

// The same over given memory (a model's weight mapping: the very pages decode streams, with their
// page size and placement): `threads` threads XOR-reducing it in 64 KiB pieces, 4 independent
// 64-byte streams per thread so the loads, not the reduction, set the pace. An untimed first pass
// maps the pages in; then the best of the passes that fit in `seconds`, at least one: a pass is
// long (hundreds of MB), and on a shared machine other work only ever slows one down.
double measure_stream_gbs(const uint8_t* data, std::size_t bytes, int threads, double seconds = 0.5);

// The XOR of the 64-byte lines in [p, p + n) (n a multiple of 256): the read measure_stream_gbs
// times, for benchmarks that run it inside their own loops.
uint64_t xor_lines(const uint8_t* p, std::size_t n);

// OpenBLAS sgemm throughput in GFLOP/s on an m×k by k×n product (prefill-like shape).
double measure_sgemm_gflops(int threads, int m = 512, int n = 768, int k = 768, double seconds = 0.5);

}  // namespace snapdoc::cpu
