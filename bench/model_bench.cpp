// Prefill and decode speed of a model on the CPU backend, next to the machine's ceilings measured
// in the same run: sgemm GFLOP/s for prefill, read bandwidth for decode (batch-1 decoding must
// stream every weight once per token, so bandwidth / bytes-per-token bounds tokens/s).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "app/common/args.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "bench/synthetic_model.h"
#include "engine/common/error.h"
#include "engine/common/memory_stats.h"
#include "engine/model/model.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/session/prefill.h"

namespace snapdoc::bench {

namespace {

std::vector<cli::FlagSpec> run_flags() {
    return {{{"--prompt-tokens"}}, {{"--gen-tokens"}}, {{"-t", "--threads"}}, {{"--repeat"}}, {{"--no-probe"}, false},
            {{"--device"}},       {{"--precise-roles"}}};
}

// --precise-roles "none;all;down,head": the CPU backend once per mix of matmul roles with precise
// activations (SNAPDOC_PRECISE_ROLES, set while each backend is built; matmul.cpp), their prefills
// and decodes taken in turn (A B C A B C ...) in this one process, so drift on a shared machine hits
// all alike. Prints each mix's median and its speed relative to the first.
int run_roles_comparison(const Model& model, const std::string& list, int prompt_tokens, int gen_tokens, int threads,
                         int repeat) {
    std::vector<std::string> mixes;
    for (std::size_t b = 0; b <= list.size();) {
        const std::size_t e = std::min(list.find(';', b), list.size());
        mixes.push_back(list.substr(b, e - b));
        b = e + 1;
    }
    const char* before = std::getenv("SNAPDOC_PRECISE_ROLES");
    const std::string saved = before ? before : "";
    std::vector<std::unique_ptr<Backend>> backends;
    for (const std::string& mix : mixes) {
        setenv("SNAPDOC_PRECISE_ROLES", mix.c_str(), 1);
        BackendOptions opts;
        opts.threads = threads;
        backends.push_back(make_backend(model, opts, "cpu"));
    }
    if (before) setenv("SNAPDOC_PRECISE_ROLES", saved.c_str(), 1); else unsetenv("SNAPDOC_PRECISE_ROLES");
    const ModelConfig& c = model.config;
    std::mt19937 rng(42);
    std::vector<int32_t> ids(prompt_tokens);
    for (auto& id : ids) id = static_cast<int32_t>(rng() % c.vocab_size);
    std::vector<std::vector<double>> prefill_s(mixes.size()), decode_s(mixes.size());
    for (int r = 0; r < repeat; ++r)
        for (std::size_t k = 0; k < mixes.size(); ++k) {
            Backend& backend = *backends[k];
            auto kv = make_full_kv_cache(backend, prompt_tokens + gen_tokens);
            auto t0 = Clock::now();
            std::vector<float> logits = prefill(backend, ids, 0, *kv);
            prefill_s[k].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            auto act = backend.create_activations(1);
            t0 = Clock::now();
            for (int i = 0; i < gen_tokens; ++i) {
                const int32_t tok = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
                const int32_t pos = prompt_tokens + i;
                backend.embed(&tok, 1, *act, 0);
                for (int l = 0; l < c.n_layers; ++l) backend.run_layer(l, *act, 0, 1, &pos, *kv, nullptr);
                backend.logits(*act, 0, logits.data());
            }
            decode_s[k].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        }
    const char* level = std::getenv("SNAPDOC_CPU_KERNELS");
    std::printf("precise roles, %d prompt tokens, %d decoded, %d runs each in turn, %d threads, level %s\n",
                prompt_tokens, gen_tokens, repeat, threads, level && *level ? level : "best");
    const double pf0 = prompt_tokens / median(prefill_s[0]), dec0 = gen_tokens / median(decode_s[0]);
    for (std::size_t k = 0; k < mixes.size(); ++k) {
        const double pf = prompt_tokens / median(prefill_s[k]), dec = gen_tokens / median(decode_s[k]);
        std::printf("  %-28s prefill %7.1f tok/s (%.2fx)   decode %6.2f tok/s (%.2fx)\n",
                    mixes[k].empty() ? "(default)" : mixes[k].c_str(), pf, pf / pf0, dec, dec / dec0);
    }
    return 0;
}

int run_model_bench(const std::filesystem::path& path, const cli::Args& args) {
    const int prompt_tokens = args.integer("prompt-tokens", 512);
    const int gen_tokens = args.integer("gen-tokens", 128);
    const int threads = args.integer("threads", 0) > 0 ? args.integer("threads", 0)
                                                      : static_cast<int>(std::thread::hardware_concurrency());
    const int repeat = std::max(1, args.integer("repeat", 3));
    if (prompt_tokens < 1 || gen_tokens < 1) throw Error("--prompt-tokens and --gen-tokens must be >= 1");

    const Model model = load_model(path);
    if (args.has("precise-roles"))
        return run_roles_comparison(model, args.str("precise-roles"), prompt_tokens, gen_tokens, threads, repeat);
    const ModelConfig& c = model.config;
    const ModelSummary s = summarize(model);
    BackendOptions opts;
    opts.threads = threads;
    auto backend = make_backend(model, opts, args.str("device", "cpu"));

    std::mt19937 rng(42);
    std::vector<int32_t> ids(prompt_tokens);
    for (auto& id : ids) id = static_cast<int32_t>(rng() % c.vocab_size);

    std::vector<double> prefill_s, decode_s;
    for (int r = 0; r < repeat; ++r) {
        auto kv = make_full_kv_cache(*backend, prompt_tokens + gen_tokens);
        auto t0 = Clock::now();
        std::vector<float> logits = prefill(*backend, ids, 0, *kv);
        prefill_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        auto act = backend->create_activations(1);
        t0 = Clock::now();
        for (int i = 0; i < gen_tokens; ++i) {
            const int32_t tok = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
            const int32_t pos = prompt_tokens + i;
            backend->embed(&tok, 1, *act, 0);
            for (int l = 0; l < c.n_layers; ++l) backend->run_layer(l, *act, 0, 1, &pos, *kv, nullptr);
            backend->logits(*act, 0, logits.data());
        }
        decode_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double pf = prompt_tokens / median(prefill_s);
    const double dec = gen_tokens / median(decode_s);

    // Bytes streamed per decoded token: every weight except the embedding table (one row of it),
    // plus the KV cache read at the mean context length.
    const int64_t emb_bytes = static_cast<int64_t>(dtype_row_bytes(model.weights.tok_embeddings.dtype, c.dim)) * c.vocab_size;
    const double mean_ctx = prompt_tokens + gen_tokens / 2.0;
    const double bytes_per_token =
        static_cast<double>(s.weight_bytes - (c.tied_embeddings ? 0 : emb_bytes)) + s.kv_bytes_per_token * mean_ctx;
    // FLOPs per prefill token: 2 per weight of the layers (the output head runs once per prompt),
    // plus attention QK and PV at the mean causal length.
    const double layer_params = static_cast<double>(s.parameters) - 2.0 * c.vocab_size * c.dim;
    const double flops_per_token = 2.0 * layer_params + 4.0 * c.n_layers * c.q_dim() * (prompt_tokens / 2.0);

    std::printf("model:            %s (%s, %.1f M params, %s)\n", path.filename().c_str(),
                std::string(dtype_name(c.weight_dtype)).c_str(), s.parameters / 1e6, format_bytes(s.weight_bytes).c_str());
    std::printf("backend:          %s, %d CPU threads\n", backend->name().c_str(), threads);
    std::printf("prefill:          %d tokens, median %.3f s over %d runs -> %.1f tok/s, %.1f GFLOP/s\n", prompt_tokens,
                median(prefill_s), repeat, pf, pf * flops_per_token / 1e9);
    std::printf("decode:           %d tokens after the prompt, median %.3f s -> %.2f tok/s, %.1f GB/s effective\n",
                gen_tokens, median(decode_s), dec, dec * bytes_per_token / 1e9);
    if (!args.has("no-probe")) {
        const double bw = cpu::measure_read_bandwidth_gbs(threads);
        const double gf = cpu::measure_sgemm_gflops(threads, 512, std::min(c.dim, 4096), std::min(c.dim, 4096));
        std::printf("machine:          read bandwidth %.1f GB/s, OpenBLAS sgemm %.1f GFLOP/s (%d threads, same run)\n", bw,
                    gf, threads);
        std::printf("decode roofline:  %.2f tok/s (bandwidth / %.1f MB per token) -> achieved %.0f%%\n",
                    bw * 1e9 / bytes_per_token, bytes_per_token / 1e6, 100.0 * dec / (bw * 1e9 / bytes_per_token));
        std::printf("prefill ceiling:  %.1f tok/s at sgemm speed -> achieved %.0f%%\n", gf * 1e9 / flops_per_token,
                    100.0 * pf / (gf * 1e9 / flops_per_token));
    }
    std::printf("peak RSS:         %s\n", format_bytes(peak_rss_bytes()).c_str());
    return 0;
}

}  // namespace

int bench_model(int argc, char** argv) {
    auto flags = run_flags();
    flags.push_back({{"-m", "--model"}});
    const cli::Args args(flags, argc, argv, 2);
    return run_model_bench(args.required("model"), args);
}

int bench_synthetic(int argc, char** argv) {
    auto flags = run_flags();
    flags.insert(flags.end(),
                 {{{"--shape"}}, {{"--dtype"}}, {{"--out"}}, {{"--list"}, false}, {{"--tokenizer"}}, {{"--write-only"}, false}});
    const cli::Args args(flags, argc, argv, 2);
    if (args.has("list")) {
        for (const auto& s : synthetic_shapes()) std::printf("%-12s %s\n", s.name.c_str(), s.description.c_str());
        return 0;
    }
    const SyntheticShape& shape = find_shape(args.str("shape", "llama-125m"));
    const std::string dt = args.str("dtype", "f16");
    const std::filesystem::path out =
        args.has("out") ? std::filesystem::path(args.str("out"))
                        : std::filesystem::temp_directory_path() / ("snapdoc-synthetic-" + shape.name + "-" + dt + ".gguf");
    const auto t0 = Clock::now();
    const bool existed = std::filesystem::exists(out);
    write_synthetic_model(shape, parse_dtype(dt), out, args.str("tokenizer"));
    std::printf("synthetic model:  %s (%s, %s)\n", out.c_str(), existed ? "reused" : "written",
                existed ? "-" : (std::to_string(std::chrono::duration<double>(Clock::now() - t0).count()) + " s").c_str());
    if (args.has("write-only")) return 0;
    return run_model_bench(out, args);
}

}  // namespace snapdoc::bench
