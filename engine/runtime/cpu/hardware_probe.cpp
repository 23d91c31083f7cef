#include "engine/runtime/cpu/hardware_probe.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "engine/runtime/cpu/dot_kernels.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::cpu {

namespace {
double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

double measure_read_bandwidth_gbs(int threads, double seconds) {
    const std::size_t n = std::size_t{64} << 20;  // 256 MiB of floats
    std::vector<float> a(n, 1.0f), ones(1 << 14, 1.0f);
    ThreadPool pool(threads);
    volatile float sink = 0;
    double bytes = 0;
    const double t0 = now_s();
    double t = t0;
    const int64_t block = 1 << 14;
    while (t - t0 < seconds) {
        pool.parallel_for(static_cast<int64_t>(n) / block, 16, [&](int64_t b0, int64_t b1, int) {
            float s = 0;
            for (int64_t b = b0; b < b1; ++b) s += dot_f32(a.data() + b * block, ones.data(), block);
            sink = sink + s;
        });
        bytes += static_cast<double>(n) * sizeof(float);
        t = now_s();
    }
    return bytes / (t - t0) / 1e9;
}

// Four independent chains of 64-byte lines.
uint64_t xor_lines(const uint8_t* p, std::size_t n) {
    uint64_t a[4][8] = {};
    for (std::size_t i = 0; i + 256 <= n; i += 256)
        for (int s = 0; s < 4; ++s)
            for (int w = 0; w < 8; ++w) {
                uint64_t v;
                std::memcpy(&v, p + i + 64 * s + 8 * w, 8);
                a[s][w] ^= v;
            }
    uint64_t r = 0;
    for (auto& s : a)
        for (uint64_t v : s) r ^= v;
    return r;
}

double measure_stream_gbs(const uint8_t* data, std::size_t bytes, int threads, double seconds) {
    constexpr std::size_t kPiece = std::size_t{64} << 10;
    const int64_t pieces = static_cast<int64_t>(bytes / kPiece);
    if (pieces == 0) return 0.0;
    ThreadPool pool(threads);
    std::vector<uint64_t> sink(static_cast<std::size_t>(pool.size()) * 8);  // a line per thread
    const auto pass = [&] {
        pool.parallel_for(pieces, 16, [&](int64_t b0, int64_t b1, int thread) {
            uint64_t x = 0;
            for (int64_t b = b0; b < b1; ++b) x ^= xor_lines(data + static_cast<std::size_t>(b) * kPiece, kPiece);
            sink[static_cast<std::size_t>(thread) * 8] ^= x;
        });
    };
    pass();  // not timed: it maps the pages in (a file mapping not yet touched faults, or reads disk)
    double best = 0.0;
    const double t0 = now_s();
    do {
        const double start = now_s();
        pass();
        best = std::max(best, static_cast<double>(pieces) * kPiece / (now_s() - start) / 1e9);
    } while (now_s() - t0 < seconds);
    volatile uint64_t keep = sink[0];
    (void)keep;
    return best;
}

double measure_sgemm_gflops(int threads, int m, int n, int k, double seconds) {
    openblas_set_num_threads(threads);
    std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f), b(static_cast<std::size_t>(n) * k, 0.25f),
        c(static_cast<std::size_t>(m) * n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    int reps = 0;
    const double t0 = now_s();
    double t = t0;
    while (t - t0 < seconds) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(),
                    n);
        ++reps;
        t = now_s();
    }
    openblas_set_num_threads(1);  // the CPU backend runs OpenBLAS single-threaded inside its own pool
    return 2.0 * m * n * k * reps / (t - t0) / 1e9;
}

}  // namespace snapdoc::cpu
