// The prefill matmul of block-quantized weights: MatMul's integer GEMM (one 8-bit activation plane,
// the default; --planes 1,2 also times --precise-activations' two, through SNAPDOC_ACT_PLANES, at each
// kernel level this CPU runs, and --planes wide the AVX2 level's 16-bit activations, SNAPDOC_WIDE_ACT,
// which 1pl / 2pl turn off) against its exact f32 path (--exact-prefill: dequantized slices into
// our AVX-512 sgemm, or OpenBLAS), same run, same matrices: the weight shapes of Llama-3.2-1B
// (dim 2048, 32/8 heads, FFN 8192) times a chunk of --rows activation rows. The variants run in turn
// within each trial (A B C A B C ...) so drift on a shared machine hits all alike; each figure is
// the best trial, as GOP/s per wall second and per CPU-second of this process (the second does not
// depend on what else the machine runs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "app/common/args.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/model/dtype.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;

double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Variant {
    std::string name;
    bool exact;
    cpu::KernelLevel level;
    int planes = 1;  // activation planes (SNAPDOC_ACT_PLANES)
    bool wide = false;  // 16-bit activations (SNAPDOC_WIDE_ACT, AVX2 level only)
};

struct Rate {
    double wall = 0, per_cpu = 0;
};

DType parse_block_type(const std::string& name) {
    for (DType t : kAllDTypes)
        if (dtype_name(t) == name && dtype_is_quantized(t)) return t;
    throw Error("snapdoc-bench qgemm: unknown block type '" + name + "'");
}

}  // namespace

int bench_qgemm(int argc, char** argv) {
    const cli::Args args({{{"--rows"}}, {{"--threads"}}, {{"--trials"}}, {{"--types"}}, {{"--planes"}}, {{"--levels"}}},
                         argc, argv, 2);
    const int threads = std::max(1, args.integer("threads", 2)), rows = args.integer("rows", 512);
    const int trials = std::max(1, args.integer("trials", 3));
    if (rows < 1) throw Error("snapdoc-bench qgemm: --rows must be >= 1");
    std::vector<DType> types;
    {
        const std::string list = args.str("types", "Q4_K,Q6_K,Q8_0");
        for (std::size_t s = 0; s <= list.size();) {
            const std::size_t e = std::min(list.find(',', s), list.size());
            if (e > s) types.push_back(parse_block_type(list.substr(s, e - s)));
            s = e + 1;
        }
    }
    // --planes 1,2 times each level with one activation plane (llama.cpp's 8 bits) and with two;
    // --levels picks levels (default: every one this CPU runs but portable).
    const std::string plane_list = args.str("planes", "1"), level_list = args.str("levels", "");
    std::vector<Variant> variants;
    for (cpu::KernelLevel l : cpu::kAllKernelLevels) {
        const std::string name = cpu::kernel_level_name(l);
        const bool wanted = level_list.empty() ? l != cpu::KernelLevel::Portable
                                               : ("," + level_list + ",").find("," + name + ",") != std::string::npos;
        if (!cpu::kernel_level_available(l) || !wanted) continue;
        for (int planes : {1, 2})
            if (plane_list.find(std::to_string(planes)) != std::string::npos)
                variants.push_back({(planes == 1 ? "1pl " : "2pl ") + name, false, l, planes});
        if (plane_list.find("wide") != std::string::npos && l == cpu::KernelLevel::Avx2)
            variants.push_back({"wide " + name, false, l, 1, true});
    }
    variants.push_back({"exact f32", true, cpu::best_kernel_level()});
    double load[1] = {-1};
    getloadavg(load, 1);
    std::printf("qgemm bench: y[%d, out] = x[%d, in]·Wᵀ, %d threads, best of %d interleaved trials, load average %.2f\n",
                rows, rows, threads, trials, load[0]);
    struct Shape {
        int out, in;
        const char* what;
    };
    const Shape shapes[] = {{2048, 2048, "wq / wo"}, {512, 2048, "wk / wv"}, {8192, 2048, "gate / up"},
                            {2048, 8192, "down"}};
    ThreadPool pool(threads);
    std::printf("%-6s %-22s", "type", "shape (out x in)");
    for (const Variant& v : variants) std::printf(" %16s %10s", (v.name + " GOP/s").c_str(), "/cpu-s");
    std::printf(" %9s\n", "best/f32");
    std::mt19937 gen(1);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(rows) * 8192);
    for (float& v : x) v = nd(gen);
    for (DType t : types) {
        for (const Shape& s : shapes) {
            std::vector<float> wf(static_cast<std::size_t>(s.out) * s.in);
            for (float& v : wf) v = 0.02f * nd(gen);
            const std::size_t row_bytes = dtype_row_bytes(t, s.in);
            std::vector<uint8_t> packed(row_bytes * s.out);
            for (int r = 0; r < s.out; ++r) quantize_row(t, wf.data() + std::size_t(r) * s.in, packed.data() + r * row_bytes, s.in);
            TensorView w;
            w.name = "w";
            w.dtype = t;
            w.shape = {s.out, s.in};
            w.data = packed.data();
            w.nbytes = packed.size();
            std::vector<float> y(static_cast<std::size_t>(rows) * s.out);
            const double gop = 2.0 * rows * s.out * s.in / 1e9;
            std::vector<Rate> best(variants.size());
            std::vector<std::unique_ptr<cpu::MatMul>> mms(variants.size());
            for (int trial = 0; trial <= trials; ++trial)  // trial 0 warms up, not counted
                for (std::size_t k = 0; k < variants.size(); ++k) {
                    const Variant& v = variants[k];
                    setenv("SNAPDOC_CPU_KERNELS", cpu::kernel_level_name(v.level), 1);
                    setenv("SNAPDOC_ACT_PLANES", v.planes == 1 ? "1" : "2", 1);  // read when MatMul is made
                    setenv("SNAPDOC_WIDE_ACT", v.wide ? "1" : "0", 1);
                    // One MatMul per variant, kept across trials as a backend keeps its own: its
                    // activation buffers are then allocated (and page-faulted) once, not timed.
                    if (!mms[k]) mms[k] = std::make_unique<cpu::MatMul>(pool, v.exact);
                    cpu::MatMul& mm = *mms[k];
                    const double c0 = process_cpu_seconds();
                    const auto t0 = Clock::now();
                    mm(w, x.data(), rows, y.data());
                    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
                    const double cpu_s = process_cpu_seconds() - c0;
                    if (trial == 0) continue;
                    best[k].wall = std::max(best[k].wall, gop / wall);
                    best[k].per_cpu = std::max(best[k].per_cpu, gop / cpu_s);
                }
            unsetenv("SNAPDOC_CPU_KERNELS");
            unsetenv("SNAPDOC_ACT_PLANES");
            unsetenv("SNAPDOC_WIDE_ACT");
            char label[64];
            std::snprintf(label, sizeof label, "%dx%d (%s)", s.out, s.in, s.what);
            std::printf("%-6s %-22s", std::string(dtype_name(t)).c_str(), label);
            double top = 0;
            for (std::size_t k = 0; k < variants.size(); ++k) {
                std::printf(" %16.1f %10.1f", best[k].wall, best[k].per_cpu);
                if (!variants[k].exact) top = std::max(top, best[k].per_cpu);
            }
            std::printf(" %8.2fx\n", top / best.back().per_cpu);
        }
    }
    return 0;
}

}  // namespace snapdoc::bench
