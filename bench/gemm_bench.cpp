// The prefill GEMM: our gemm_f32 (AVX-512 kernel) against single-threaded OpenBLAS sgemm, same run,
// same shapes — the calls MatMul makes for a 512-token prefill chunk: C[512, slice] = x[512, in]·Wᵀ
// with W slices of the sizes MatMul cuts (256 rows at in=768, 128 at in=2048) and, for reference,
// a whole per-thread share of the 768/2048/3072-row weights. `threads` concurrent single-threaded
// streams, the way MatMul's pool runs them; GFLOP/s per wall second and per CPU-second (the second
// does not depend on what else the machine runs), best of --trials.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <thread>
#include <vector>

#include "app/common/args.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/runtime/cpu/gemm_f32.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Rate {
    double wall = 0, per_cpu = 0;
};

enum class Engine { Ours, OpenBlas };

Rate gemm_rate(Engine engine, int threads, int m, int n, int k, int trials) {
    const int reps = std::max(1, static_cast<int>(1e9 / (2.0 * m * n * k)));  // ~1 GFLOP per thread per trial
    const double gflop = 2.0 * m * n * k * reps * threads / 1e9;
    std::vector<std::vector<float>> a(threads), b(threads), c(threads);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (int i = 0; i < threads; ++i) {
        a[i].resize(static_cast<std::size_t>(m) * k);
        b[i].resize(static_cast<std::size_t>(n) * k);
        c[i].resize(static_cast<std::size_t>(m) * n);
        for (float& x : a[i]) x = dist(rng);
        for (float& x : b[i]) x = dist(rng);
    }
    Rate best;
    for (int t = 0; t <= trials; ++t) {  // trial 0 warms caches and scratch, not counted
        std::vector<std::thread> pool;
        std::vector<double> cpu(threads);
        const auto t0 = Clock::now();
        for (int i = 0; i < threads; ++i)
            pool.emplace_back([&, i] {
                const double c0 = thread_cpu_seconds();
                for (int r = 0; r < reps; ++r) {
                    if (engine == Engine::Ours)
                        cpu::gemm_f32_nt(m, n, k, a[i].data(), k, b[i].data(), k, c[i].data(), n);
                    else
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a[i].data(), k,
                                    b[i].data(), k, 0.0f, c[i].data(), n);
                }
                cpu[i] = thread_cpu_seconds() - c0;
            });
        for (auto& th : pool) th.join();
        if (t == 0) continue;
        double cpu_total = 0;
        for (double s : cpu) cpu_total += s;
        best.wall = std::max(best.wall, gflop / std::chrono::duration<double>(Clock::now() - t0).count());
        best.per_cpu = std::max(best.per_cpu, gflop / cpu_total);
    }
    return best;
}

}  // namespace

int bench_gemm(int argc, char** argv) {
    const cli::Args args({{{"--rows"}}, {{"--threads"}}, {{"--trials"}}}, argc, argv, 2);
    const int threads = std::max(1, args.integer("threads", 2)), rows = args.integer("rows", 512);
    const int trials = std::max(1, args.integer("trials", 3));
    if (rows < 1) throw Error("snapdoc-bench gemm: --rows must be >= 1");
    if (!cpu::gemm_f32_has_avx512())
        std::printf(
            "note: this CPU has no AVX-512F: 'ours' is the portable loop (MatMul keeps OpenBLAS here)\n");
    openblas_set_num_threads(1);
    double l[1] = {-1};
    getloadavg(l, 1);
    std::printf(
        "gemm bench: C[%d, n] = A[%d, k]·B[n, k]^T, %d concurrent single-threaded streams, OpenBLAS core %s, "
        "load average %.2f\n",
        rows, rows, threads, openblas_get_corename(), l[0]);
    std::printf("%-28s %14s %14s %14s %14s %7s\n", "shape (n x k)", "ours GFLOP/s", "ours /cpu-s", "OpenBLAS",
                "OB /cpu-s", "ratio");
    struct Case {
        int n, k;
        const char* what;
    };
    const Case cases[] = {{256, 768, "slice, in=768"},   {128, 2048, "slice, in=2048"},
                          {384, 768, "768/2, in=768"},   {1024, 768, "2048/2, in=768"},
                          {1536, 768, "3072/2, in=768"}, {384, 2048, "768/2, in=2048"}};
    for (const Case& cs : cases) {
        const Rate ours = gemm_rate(Engine::Ours, threads, rows, cs.n, cs.k, trials);
        const Rate blas = gemm_rate(Engine::OpenBlas, threads, rows, cs.n, cs.k, trials);
        char label[64];
        std::snprintf(label, sizeof label, "%dx%d (%s)", cs.n, cs.k, cs.what);
        std::printf("%-28s %14.1f %14.1f %14.1f %14.1f %6.2fx\n", label, ours.wall, ours.per_cpu, blas.wall,
                    blas.per_cpu, ours.per_cpu / blas.per_cpu);
    }
    return 0;
}

}  // namespace snapdoc::bench
