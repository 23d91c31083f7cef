// The weight reads of one decode token, without attention or the serial steps between them: every
// layer's q/k/v and gate/up through MatMul::same_input, o and down, then the output head, as the CPU
// backend issues them, over a real GGUF's mapped weights. Tokens alternate between the decode
// loops' two row schedules (MatMul::RowSchedule), so both see the same minutes of this shared
// machine, and an XOR stream over the model file's own mapping (cpu::measure_stream_gbs, the
// roofline snapdoc-bench longctx divides by) runs before and after. What this isolates: how close
// the dot kernels plus the thread hand-offs come to the bandwidth, with nothing else in the token.
// A third pass, alternating too, reads the same rows in the same parallel loops with an XOR in place
// of the dots: the ceiling of the loop structure itself (hand-offs, tails, one stream per thread).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "app/common/args.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/runtime/cpu/matmul.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace snapdoc::bench {

namespace {

using Clock = std::chrono::steady_clock;
using Schedule = cpu::MatMul::RowSchedule;

// Bytes of the weights one token reads (the matrices below; norms and biases are noise).
double token_weight_bytes(const ModelWeights& w) {
    double bytes = static_cast<double>(w.output.nbytes);
    for (const LayerWeights& l : w.layers)
        for (const TensorView* v : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            bytes += static_cast<double>(v->nbytes);
    return bytes;
}

}  // namespace

int bench_decode_matmuls(int argc, char** argv) {
    const cli::Args args({{{"-m", "--model"}}, {{"--tokens"}}, {{"-t", "--threads"}}}, argc, argv, 2);
    if (!args.has("model")) throw Error("-m MODEL is required");
    const int tokens = std::max(4, args.integer("tokens", 100));
    const Model model = load_model(args.str("model"));
    const ModelConfig& c = model.config;
    ThreadPool pool(args.integer("threads", 0));
    cpu::MatMul mm(pool);

    const int q_dim = c.n_heads * c.head_dim, kv_dim = c.n_kv_heads * c.head_dim;
    std::mt19937 gen(3);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(std::max(c.dim, c.ffn_dim)), q(q_dim), k(kv_dim), v(kv_dim), o(c.dim),
        gate(c.ffn_dim), up(c.ffn_dim), logits(c.vocab_size);
    for (float& e : x) e = nd(gen);
    const ModelWeights& w = model.weights;
    const auto token = [&] {
        for (const LayerWeights& l : w.layers) {
            mm.same_input({{&l.wq, q.data()}, {&l.wk, k.data()}, {&l.wv, v.data()}}, x.data(), 1);
            mm(l.wo, x.data(), 1, o.data());
            mm.same_input({{&l.w_gate, gate.data()}, {&l.w_up, up.data()}}, x.data(), 1);
            mm(l.w_down, x.data(), 1, o.data());
        }
        mm(w.output, x.data(), 1, logits.data());
    };
    // The same loops with the rows XOR-read instead of dotted.
    std::vector<uint64_t> sink(static_cast<std::size_t>(pool.size()) * 8);
    const auto read_rows = [&](std::initializer_list<const TensorView*> group) {
        std::vector<const TensorView*> views(group);
        std::vector<int64_t> first(views.size() + 1, 0);
        for (std::size_t k = 0; k < views.size(); ++k) first[k + 1] = first[k] + views[k]->rows();
        pool.parallel_for_stream(first.back(), 16, [&](int64_t r0, int64_t r1, int thread) {
            for (std::size_t k = 0; k < views.size(); ++k) {
                const int64_t b = std::max(r0, first[k]) - first[k],
                              e = std::min(r1, first[k + 1]) - first[k];
                if (b >= e) continue;
                const std::size_t row_bytes = views[k]->nbytes / static_cast<std::size_t>(views[k]->rows());
                const auto* base =
                    static_cast<const uint8_t*>(views[k]->data) + static_cast<std::size_t>(b) * row_bytes;
                sink[static_cast<std::size_t>(thread) * 8] ^=
                    cpu::xor_lines(base, static_cast<std::size_t>(e - b) * row_bytes / 256 * 256);
            }
        });
    };
    const auto read_token = [&] {
        for (const LayerWeights& l : w.layers) {
            read_rows({&l.wq, &l.wk, &l.wv});
            read_rows({&l.wo});
            read_rows({&l.w_gate, &l.w_up});
            read_rows({&l.w_down});
        }
        read_rows({&w.output});
    };
    const MappedFile& file = *model.mappings.front();
    const auto stream_gbs = [&] {
        return cpu::measure_stream_gbs(file.data(), file.size(), pool.size(), 0.5);
    };

    const double bytes = token_weight_bytes(w);
    const double roof_before = stream_gbs();
    token();  // warm-up: pages every weight in
    std::vector<double> seconds[3];
    for (int t = 0; t < 3 * tokens; ++t) {
        const int s = t % 3;
        mm.set_row_schedule(s == 0 ? Schedule::OwnedShares : Schedule::SharedChunks);
        const auto t0 = Clock::now();
        if (s < 2)
            token();
        else
            read_token();
        seconds[s].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double roof_after = stream_gbs();
    const double roof = std::max(roof_before, roof_after);
    std::printf("model %s, %d threads, %.1f MB of weights per token, %d tokens per schedule (alternating)\n",
                args.str("model").c_str(), pool.size(), bytes / 1e6, tokens);
    std::printf("XOR stream over the mapping: %.1f GB/s before, %.1f after\n", roof_before, roof_after);
    std::printf("%-14s %10s %10s %8s %8s\n", "schedule", "ms/token", "GB/s", "%roof", "p10-p90");
    const char* names[3] = {"owned shares", "shared chunks", "XOR, owned"};
    for (int s = 0; s < 3; ++s) {
        std::vector<double> v = seconds[s];
        std::sort(v.begin(), v.end());
        const double med = median(v);
        std::printf("%-14s %10.2f %10.1f %7.0f%% %4.1f-%4.1f\n", names[s], med * 1e3, bytes / med / 1e9,
                    100.0 * bytes / med / 1e9 / roof, v[v.size() / 10] * 1e3, v[v.size() * 9 / 10] * 1e3);
    }
    std::printf(
        "(%%roof: of the higher XOR stream figure; the output head and every layer's matrices, nothing "
        "else; XOR, owned: the same rows read in the same loops, no dots)\n");
    return 0;
}

}  // namespace snapdoc::bench
