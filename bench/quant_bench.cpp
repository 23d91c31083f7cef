// Batch-1 matmul throughput per weight type: GB/s of weight bytes streamed by MatMul on one
// [rows, cols] matrix (decode's shape), next to the machine's read bandwidth measured in the same
// run. Decode reads every weight byte once per token, so this ratio is how close a type's kernel
// gets to the memory roofline. Enough copies of the matrix are cycled that each call reads DRAM,
// not a cache that still holds the previous call's weights. On a shared machine other work only
// ever slows a trial down, so every figure (the roofline too) is the best of --trials short trials.
// The "cached" column is the kernel's own ceiling, independent of the memory system and of other
// processes: one thread on a matrix slice that stays in L2, timed in thread CPU time. A kernel is
// bandwidth-bound wherever that ceiling is well above the per-thread share of the roofline.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "app/common/args.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/model/dtype.h"
#include "engine/model/tensor.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr DType kTypes[] = {DType::F16,  DType::BF16, DType::Q8_0,   DType::Q4_0,  DType::Q4_1,
                            DType::Q5_0, DType::Q5_1, DType::Q2_K,   DType::Q3_K,  DType::Q4_K,
                            DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS};

DType parse_type(const std::string& name) {
    for (DType t : kTypes)
        if (dtype_name(t) == name) return t;
    throw Error("snapdoc-bench quant: unknown --types entry '" + name + "'");
}

std::vector<DType> types_from(const std::string& list) {
    if (list.empty()) return {std::begin(kTypes), std::end(kTypes)};
    std::vector<DType> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        if (end > start) out.push_back(parse_type(list.substr(start, end - start)));
        start = end + 1;
    }
    return out;
}

// Best (shortest) seconds per call of MatMul (batch 1) over `copies` equal matrices, cycling,
// over `trials` trials of about `seconds` each.
double time_per_call(cpu::MatMul& mm, std::vector<TensorView>& copies, const std::vector<float>& x,
                     std::vector<float>& y, double seconds, int trials) {
    for (auto& w : copies) mm(w, x.data(), 1, y.data());  // warm-up: page in every copy
    double best = 1e30;
    for (int t = 0; t < trials; ++t) {
        int calls = 0;
        const auto t0 = Clock::now();
        double elapsed = 0;
        while (elapsed < seconds) {
            for (auto& w : copies) {
                mm(w, x.data(), 1, y.data());
                ++calls;
            }
            elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        }
        best = std::min(best, elapsed / calls);
    }
    return best;
}

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// GB/s per CPU-second of one thread (ThreadPool(1) runs in the caller) on an L2-resident slice.
double cached_gbs(const TensorView& w, const std::vector<float>& x, std::vector<float>& y, int trials) {
    TensorView slice = w;
    slice.shape = {
        std::min<int64_t>(w.rows(),
                          std::max<int64_t>(1, (int64_t{512} << 10) /
                                                   static_cast<int64_t>(dtype_row_bytes(w.dtype, w.cols())))),
        w.cols()};
    const double bytes =
        static_cast<double>(dtype_row_bytes(w.dtype, w.cols())) * static_cast<double>(slice.rows());
    ThreadPool pool(1);
    cpu::MatMul mm(pool);
    mm(slice, x.data(), 1, y.data());
    double best = 0;
    for (int t = 0; t < trials; ++t) {
        const int calls = std::max(1, static_cast<int>(2e8 / bytes));
        const double t0 = thread_cpu_seconds();
        for (int c = 0; c < calls; ++c) mm(slice, x.data(), 1, y.data());
        best = std::max(best, bytes * calls / (thread_cpu_seconds() - t0) / 1e9);
    }
    return best;
}

double best_bandwidth(int threads, double seconds, int trials) {
    double best = 0;
    for (int t = 0; t < trials; ++t) best = std::max(best, cpu::measure_read_bandwidth_gbs(threads, seconds));
    return best;
}

}  // namespace

int bench_quant(int argc, char** argv) {
    const cli::Args args(
        {{{"--rows"}}, {{"--cols"}}, {{"--threads"}}, {{"--types"}}, {{"--seconds"}}, {{"--trials"}}}, argc,
        argv, 2);
    const int rows = args.integer("rows", 4096), cols = args.integer("cols", 4096);
    const double seconds = args.real("seconds", 0.15f);
    const int trials = std::max(1, args.integer("trials", 5));
    const std::vector<int> threads = cli::parse_int_list(args.str("threads", "1,2"), "--threads");
    const std::vector<DType> types = types_from(args.str("types"));
    if (rows < 1 || cols < 256 || cols % 256 != 0)
        throw Error("snapdoc-bench quant: --cols must be a multiple of 256");

    std::mt19937 gen(1);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::vector<float> wf(static_cast<std::size_t>(rows) * cols), x(cols), y(rows);
    for (auto& v : wf) v = nd(gen);
    for (auto& v : x) v = nd(gen) * 50.0f;

    std::printf(
        "batch-1 matmul [%d x %d], GB/s of weight bytes read, best of %d trials (roofline: read bandwidth, "
        "same run)\n",
        rows, cols, trials);
    std::printf("%-7s %9s", "type", "MB");
    for (int t : threads) std::printf("   %2dT GB/s (roof) %%roof", t);
    std::printf("   cached 1T GB/s");
    std::printf("\n");

    for (DType type : types) {
        const std::size_t row_bytes = dtype_row_bytes(type, cols), bytes = row_bytes * rows;
        std::vector<uint8_t> packed(bytes);
        for (int r = 0; r < rows; ++r)
            quantize_row(type, wf.data() + static_cast<std::size_t>(r) * cols, packed.data() + r * row_bytes,
                         cols);
        // Copies until they exceed 256 MiB: far beyond any last-level cache.
        const int n_copies = static_cast<int>(std::max<std::size_t>(2, (std::size_t{256} << 20) / bytes + 1));
        std::vector<std::vector<uint8_t>> storage(n_copies, packed);
        std::vector<TensorView> copies;
        for (auto& s : storage) {
            TensorView v;
            v.name = "w";
            v.dtype = type;
            v.shape = {rows, cols};
            v.data = s.data();
            v.nbytes = s.size();
            copies.push_back(v);
        }
        std::printf("%-7s %9.1f", std::string(dtype_name(type)).c_str(), static_cast<double>(bytes) / 1e6);
        for (std::size_t i = 0; i < threads.size(); ++i) {
            ThreadPool pool(threads[i]);
            cpu::MatMul mm(pool);
            const double roofline =
                best_bandwidth(threads[i], seconds, trials);  // next to its row: load drifts
            const double gbs =
                static_cast<double>(bytes) / time_per_call(mm, copies, x, y, seconds, trials) / 1e9;
            std::printf("   %7.1f (%4.1f) %4.0f%%", gbs, roofline, 100.0 * gbs / roofline);
        }
        std::printf("   %14.1f", cached_gbs(copies.front(), x, y, trials));
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace snapdoc::bench
