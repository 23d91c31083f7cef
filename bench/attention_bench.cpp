// CPU prefill attention throughput: one layer-shaped problem per (shape, context) — the last
// prefill chunk (--rows queries, causal) over a dense cache of `context` keys, as the backend runs
// it — timed for the old kernel (attention_baseline) and the tiled one (attention) in the same
// run, next to the sgemm ceiling measured in the same run (OpenBLAS single-threaded, one call
// stream per thread, the way MatMul uses it). GFLOP/s count the useful work only: 4·head_dim per
// visible (query head, key) pair (Q·Kᵀ and P·V). The machine may be shared: the load average and
// the process CPU time are printed beside the wall times.
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/common/args.h"
#include "app/common/kv_type_flags.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/kv/f16_rows.h"
#include "engine/runtime/cpu/attention.h"
#include "engine/runtime/cpu/attention_baseline.h"
#include "engine/runtime/cpu/attention_vec.h"
#include "engine/runtime/cpu/attention_window_scores.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct Shape {
    const char* name;
    int n_heads, n_kv_heads, head_dim;
};
// qwen1.5b: Qwen2.5-1.5B's attention, a GQA group of 6 (decode_values takes it as 4 + 2 vectors).
constexpr Shape kShapes[] = {{"demo", 4, 2, 64},
                             {"125m", 12, 12, 64},
                             {"1b", 32, 8, 64},
                             {"7b", 32, 8, 128},
                             {"qwen1.5b", 12, 2, 128}};

const Shape& shape_named(const std::string& name) {
    for (const Shape& s : kShapes)
        if (name == s.name) return s;
    throw Error("snapdoc-bench attention: unknown shape '" + name + "' (demo, 125m, 1b, 7b)");
}

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double load_average() {
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Rate {
    double wall = 0, per_cpu = 0;  // GFLOP/s of wall time, and GFLOP per CPU-second (load-independent)
};

// `threads` concurrent single-threaded sgemm streams of [m,k]·[n,k]ᵀ, best of `trials`.
Rate sgemm_rate(int threads, int m, int n, int k, int trials) {
    openblas_set_num_threads(1);
    const int reps = std::max(1, static_cast<int>(2e9 / (2.0 * m * n * k)));  // ~2 GFLOP per thread per trial
    const double gflop = 2.0 * m * n * k * reps * threads / 1e9;
    Rate best;
    for (int t = 0; t < trials; ++t) {
        std::vector<std::thread> pool;
        std::vector<double> cpu(threads);
        const auto t0 = Clock::now();
        for (int i = 0; i < threads; ++i)
            pool.emplace_back([=, &cpu] {
                std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f),
                    b(static_cast<std::size_t>(k) * n, 0.25f), c(static_cast<std::size_t>(m) * n);
                const double c0 = thread_cpu_seconds();
                for (int r = 0; r < reps; ++r)
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(),
                                k, 0.0f, c.data(), n);
                cpu[i] = thread_cpu_seconds() - c0;
            });
        for (auto& th : pool) th.join();
        double cpu_total = 0;
        for (double c : cpu) cpu_total += c;
        best.wall = std::max(best.wall, gflop / seconds_since(t0));
        best.per_cpu = std::max(best.per_cpu, gflop / cpu_total);
    }
    return best;
}

struct Problem {
    int context, rows;
    Shape shape;
    std::vector<float> q, k, v, out;
    std::vector<uint16_t> k16, v16;  // --kv-f16: the cache as the backend's f16 cache holds it
    std::vector<int32_t> kpos, qpos;
    std::vector<cpu::CacheHeadView> views;

    Problem(const Shape& s, int ctx, int n, bool f16) : context(ctx), rows(n), shape(s) {
        std::mt19937 rng(1);
        std::normal_distribution<float> nd(0.f, 1.f);
        const int hd = s.head_dim;
        q.resize(static_cast<std::size_t>(n) * s.n_heads * hd);
        out.resize(q.size());
        k.resize(static_cast<std::size_t>(s.n_kv_heads) * ctx * hd);
        v.resize(k.size());
        for (auto& x : q) x = nd(rng);
        for (auto& x : k) x = nd(rng);
        for (auto& x : v) x = nd(rng);
        for (int i = 0; i < ctx; ++i) kpos.push_back(i);
        for (int i = 0; i < n; ++i) qpos.push_back(ctx - n + i);
        for (int c = 0; c < s.n_kv_heads; ++c)
            views.push_back({k.data() + static_cast<int64_t>(c) * ctx * hd,
                             v.data() + static_cast<int64_t>(c) * ctx * hd, kpos.data(), ctx});
        if (!f16) return;
        k16.resize(k.size());
        v16.resize(v.size());
        f32_to_f16_row(k.data(), k16.data(), static_cast<int64_t>(k.size()));
        f32_to_f16_row(v.data(), v16.data(), static_cast<int64_t>(v.size()));
        for (int c = 0; c < s.n_kv_heads; ++c) {
            views[c].k = views[c].v = nullptr;
            views[c].k16 = k16.data() + static_cast<int64_t>(c) * ctx * hd;
            views[c].v16 = v16.data() + static_cast<int64_t>(c) * ctx * hd;
        }
    }
    cpu::AttentionArgs args() {
        cpu::AttentionArgs a;
        a.q = q.data();
        a.q_positions = qpos.data();
        a.n = rows;
        a.n_heads = shape.n_heads;
        a.head_dim = shape.head_dim;
        a.group = shape.n_heads / shape.n_kv_heads;
        a.heads = views.data();
        a.scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
        a.out = out.data();
        return a;
    }
    double gflop() const {
        const double pairs = static_cast<double>(rows) * (context - rows) + 0.5 * rows * (rows + 1.0);
        return 4.0 * shape.head_dim * shape.n_heads * pairs / 1e9;
    }
};

struct Timing {
    double wall = 1e30, cpu = 0;
};

// Best wall time of `trials` calls (other processes only ever slow a call down), with its CPU time.
template <class F>
Timing best_of(int trials, F&& f) {
    Timing best;
    for (int t = 0; t < trials; ++t) {
        const double c0 = cpu_seconds();
        const auto t0 = Clock::now();
        f();
        const double wall = seconds_since(t0);
        if (wall < best.wall) best = {wall, cpu_seconds() - c0};
    }
    return best;
}

}  // namespace

int bench_attention(int argc, char** argv) {
    std::vector<cli::FlagSpec> flags = {{{"--shapes"}}, {{"--contexts"}}, {{"--rows"}},
                                        {{"--threads"}}, {{"--trials"}}, {{"--no-baseline"}, false},
                                        {{"--window"}}, {{"--isa"}},     {{"--layers"}}};
    for (auto& f : cli::kv_type_flags()) flags.push_back(std::move(f));
    const cli::Args args(flags, argc, argv, 2);
    const int threads = std::max(1, args.integer("threads", 2)), rows = args.integer("rows", 512);
    const int trials = std::max(1, args.integer("trials", 2)), window = args.integer("window", 32);
    // Several layers' caches, attended one after the other as a decode step does: more than the
    // L3 holds, so each call reads its keys and values from memory, not from the previous trial.
    const int layers = std::max(1, args.integer("layers", 1));
    const std::vector<int> contexts = cli::parse_int_list(args.str("contexts", "8192,32768"), "--contexts");
    std::vector<std::string> shapes;
    for (std::string list = args.str("shapes", "demo,125m"); !list.empty();) {
        const std::size_t comma = std::min(list.find(','), list.size());
        shapes.push_back(list.substr(0, comma));
        list.erase(0, std::min(list.size(), comma + 1));
    }
    if (rows < 1) throw Error("snapdoc-bench attention: --rows must be >= 1");
    // The f16 cache by default, as the engine's; the old kernel reads f32 only, so its baseline
    // needs --kv-f32.
    const bool f16 = cli::kv_f16_from_flags(args);
    if (!cpu::use_attention_vector_isa(args.str("isa", "auto")))
        throw Error("snapdoc-bench attention: --isa must be auto or one this CPU runs");

    std::printf(
        "attention bench: %d threads, vector ISA %s, OpenBLAS core %s, K/V cache %s, load average %.2f\n",
        threads, cpu::attention_vector_isa(), openblas_get_corename(), f16 ? "f16" : "f32", load_average());
    const Rate big = sgemm_rate(threads, 512, 512, 512, 3);
    const Rate tile = sgemm_rate(threads, cpu::kAttentionBlockQueries, cpu::kAttentionTile, 64, 3);
    std::printf(
        "sgemm ceiling (%d x single-threaded OpenBLAS): 512^3 %.1f GFLOP/s (%.1f per CPU-second), "
        "%dx%dx64 tile %.1f GFLOP/s (%.1f per CPU-second)\n",
        threads, big.wall, big.per_cpu, cpu::kAttentionBlockQueries, cpu::kAttentionTile, tile.wall,
        tile.per_cpu);
    std::printf(
        "GFLOP/s: per wall second; /cpu-s: per CPU-second (what other processes on the cores do not "
        "change); %%ceil: /cpu-s of the 512^3 sgemm's; KV GB/s: the cache read once per call, per wall "
        "second\n\n");
    std::printf("%-6s %7s %5s %8s | %8s %7s %7s | %8s %7s %7s %6s %7s | %7s | %9s\n", "shape", "context",
                "rows", "GFLOP", "old s", "GFLOP/s", "/cpu-s", "new s", "GFLOP/s", "/cpu-s", "%ceil",
                "KV GB/s", "speedup", "window s");
    ThreadPool pool(threads);
    for (const std::string& name : shapes)
        for (int ctx : contexts) {
            const Shape& s = shape_named(name);
            std::vector<Problem> stack;
            for (int l = 0; l < layers; ++l) stack.emplace_back(s, ctx, std::min(rows, ctx), f16);
            const Problem& p = stack.front();
            std::vector<cpu::AttentionArgs> per_layer;
            for (Problem& l : stack) per_layer.push_back(l.args());
            const Timing fresh = best_of(trials, [&] {
                for (const cpu::AttentionArgs& l : per_layer) cpu::attention(l, pool);
            });
            Timing old;
            if (!args.has("no-baseline") && !f16)
                old = best_of(1, [&] {
                    for (const cpu::AttentionArgs& l : per_layer) cpu::attention_baseline(l, pool);
                });
            // SnapKV's window scores at this context: the last `window` queries over all keys.
            Problem w(s, ctx, std::min(window, ctx), f16);
            std::vector<float> scores(static_cast<std::size_t>(s.n_heads) * (ctx - w.rows));
            cpu::WindowScoreArgs wa;
            const cpu::AttentionArgs wargs = w.args();
            wa.q = wargs.q, wa.q_positions = wargs.q_positions, wa.n_window = w.rows, wa.n_heads = s.n_heads;
            wa.head_dim = s.head_dim, wa.group = wargs.group, wa.heads = wargs.heads, wa.scale = wargs.scale;
            wa.n_prefix = ctx - w.rows, wa.out = scores.data();
            const Timing ws = best_of(trials, [&] { cpu::window_scores(wa, pool); });
            const double g = p.gflop() * layers;
            std::printf("%-6s %7d %5d %8.2f | ", s.name, ctx, p.rows, g);
            if (old.cpu > 0)
                std::printf("%8.3f %7.1f %7.1f | ", old.wall, g / old.wall, g / old.cpu);
            else
                std::printf("%8s %7s %7s | ", "-", "-", "-");
            // The cache bytes one call reads (every key and value once), per wall second.
            const double kv_bytes = 2.0 * layers * s.n_kv_heads * ctx * s.head_dim * (f16 ? 2 : 4);
            std::printf("%8.3f %7.1f %7.1f %5.0f%% %7.1f | ", fresh.wall, g / fresh.wall, g / fresh.cpu,
                        100 * g / fresh.cpu / big.per_cpu, kv_bytes / fresh.wall / 1e9);
            if (old.cpu > 0)
                std::printf("%6.1fx | %9.4f\n", old.wall / fresh.wall, ws.wall);
            else
                std::printf("%7s | %9.4f\n", "-", ws.wall);
            std::fflush(stdout);
        }
    std::printf("\nload average at the end %.2f\n", load_average());
    return 0;
}

}  // namespace snapdoc::bench
