// SnapKV on a long synthetic prompt: layer-major vs token-major prefill (time, resident KV, RSS),
// re-snap vs re-prefill for a new question, and decode speed on full vs compressed caches at several
// context lengths. Baselines are measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <sstream>
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
#include "engine/session/compressed_prefill.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill.h"

namespace snapdoc::bench {

int bench_snapkv(int argc, char** argv) {
    const cli::Args args({{{"-m", "--model"}},
                          {{"--shape"}},
                          {{"--dtype"}},
                          {{"--prompt-tokens"}},
                          {{"--contexts"}},
                          {{"--budget"}},
                          {{"--window"}},
                          {{"--gen-tokens"}},
                          {{"-t", "--threads"}},
                          {{"--memory"}},
                          {{"--device"}}},
                         argc, argv, 2);
    std::filesystem::path path;
    if (args.has("model")) {
        path = args.str("model");
    } else {
        const SyntheticShape& shape = find_shape(args.str("shape", "llama-125m"));
        const std::string dt = args.str("dtype", "f16");
        path = std::filesystem::temp_directory_path() / ("snapdoc-synthetic-" + shape.name + "-" + dt + ".gguf");
        write_synthetic_model(shape, parse_dtype(dt), path);
    }
    const int L = args.integer("prompt-tokens", 8192);
    const int gen = args.integer("gen-tokens", 32);
    SnapKvConfig cfg;
    cfg.budget = args.integer("budget", 1024);
    cfg.window = args.integer("window", 32);
    cfg.validate();
    const auto contexts = cli::parse_int_list(args.str("contexts", "1024,4096," + std::to_string(L)), "--contexts");

    auto t0 = Clock::now();
    const Model model = load_model(path);
    const ModelConfig& c = model.config;
    BackendOptions opts;
    opts.threads = args.integer("threads", 0);
    auto backend = make_backend(model, opts, args.str("device", "cpu"));
    const int64_t kv_layer = int64_t{2} * L * c.kv_dim() * 4;
    std::printf("model: %s (%.1f M params) on %s, prompt %d tokens, budget %d, window %d, %d threads\n",
                path.filename().c_str(), model.parameter_count() / 1e6, backend->name().c_str(), L, cfg.budget, cfg.window,
                opts.threads ? opts.threads : static_cast<int>(std::thread::hardware_concurrency()));

    const auto doc = random_ids(L - 24, c.vocab_size, 1), q1 = random_ids(24, c.vocab_size, 2),
               q2 = random_ids(24, c.vocab_size, 3);
    std::vector<int32_t> prompt = doc;
    prompt.insert(prompt.end(), q1.begin(), q1.end());

    if (args.has("memory")) {
        // One prefill path per process, so the peak RSS belongs to it alone.
        const std::string mode = args.str("memory");
        const int64_t rss0 = current_rss_bytes();
        KvCache::reset_peak_live_bytes();
        t0 = Clock::now();
        if (mode == "token-major") {
            auto kv = make_full_kv_cache(*backend, L);
            prefill(*backend, prompt, 0, *kv);
        } else if (mode == "resnap") {
            DocumentSession s(*backend);
            s.prefill_document(doc);
            s.set_question(q1, cfg.window);
            s.select(cfg);
        } else if (mode == "oneshot") {
            prefill_compressed(*backend, prompt, cfg, gen);
        } else {
            throw Error("--memory must be token-major, resnap or oneshot");
        }
        std::printf("memory mode %-12s %7.2f s  peak RSS %s (process before prefill: %s)  peak resident KV %s\n",
                    mode.c_str(), seconds_since(t0), format_bytes(peak_rss_bytes()).c_str(), format_bytes(rss0).c_str(),
                    format_bytes(KvCache::peak_live_bytes()).c_str());
        return 0;
    }

    // Baseline: token-major prefill into a full cache (every layer's K/V resident at once).
    KvCache::reset_peak_live_bytes();
    t0 = Clock::now();
    {
        auto kv = make_full_kv_cache(*backend, L);
        prefill(*backend, prompt, 0, *kv);
    }
    const double token_major_s = seconds_since(t0);
    const int64_t token_major_kv = KvCache::peak_live_bytes();

    // Layer-major document prefill + question.
    DocumentSessionOptions so;
    DocumentSession s(*backend, so);
    KvCache::reset_peak_live_bytes();
    const int64_t rss_before = current_rss_bytes();
    t0 = Clock::now();
    s.prefill_document(doc);
    s.set_question(q1, cfg.window);
    const double layer_major_s = seconds_since(t0);
    const int64_t layer_major_kv = KvCache::peak_live_bytes();
    t0 = Clock::now();
    const auto sel = s.select(cfg);
    const double select_s = seconds_since(t0);

    std::printf("\nprefill (%d tokens)\n", L);
    std::printf("  token-major, full cache:     %8.2f s  %7.1f tok/s  resident KV %s\n", token_major_s, L / token_major_s,
                format_bytes(token_major_kv).c_str());
    std::printf("  layer-major (SnapKV path):   %8.2f s  %7.1f tok/s  resident KV %s (one layer: %s), host store %s%s\n",
                layer_major_s, L / layer_major_s, format_bytes(layer_major_kv).c_str(), format_bytes(kv_layer).c_str(),
                format_bytes(s.full_store_bytes()).c_str(), s.store_file_backed() ? " (file)" : "");
    std::printf("  RSS: %s before the session, %s now, peak %s\n", format_bytes(rss_before).c_str(),
                format_bytes(current_rss_bytes()).c_str(), format_bytes(peak_rss_bytes()).c_str());
    std::printf("  selection (pool + top-k, all layers): %.1f ms; compressed cache %s vs full %s (%.1fx smaller)\n",
                select_s * 1e3, format_bytes(s.compressed_bytes(*sel)).c_str(),
                format_bytes(sel->full_entries(c.n_kv_heads) * c.head_dim * 8).c_str(),
                static_cast<double>(sel->full_entries(c.n_kv_heads)) / sel->kept_entries());

    // A second question: re-snap (question only) vs re-prefill of the whole prompt.
    t0 = Clock::now();
    s.set_question(q2, cfg.window);
    s.select(cfg);
    const double resnap_s = seconds_since(t0);
    t0 = Clock::now();
    {
        DocumentSession fresh(*backend, so);
        fresh.prefill_document(doc);
        fresh.set_question(q2, cfg.window);
        fresh.select(cfg);
    }
    const double reprefill_s = seconds_since(t0);
    std::printf("\nnew question: re-snap %.3f s vs re-prefill %.2f s (%.0fx faster)\n", resnap_s, reprefill_s,
                reprefill_s / resnap_s);

    std::printf("\ndecode tok/s (greedy, %d tokens) vs context\n  %8s %10s %10s %8s\n", gen, "context", "full", "snapkv",
                "ratio");
    for (int ctx : contexts) {
        if (ctx > L || ctx <= cfg.budget) continue;
        DocumentSession d(*backend, so);
        d.prefill_document(std::span(prompt).first(ctx - 24));
        d.set_question(std::span(prompt).last(24), cfg.window);
        SnapKvConfig full = cfg;
        full.enabled = false;
        const double f = decode_tps(d, *d.select(full), gen);
        const double k = decode_tps(d, *d.select(cfg), gen);
        std::printf("  %8d %10.2f %10.2f %7.2fx\n", ctx, f, k, k / f);
    }
    return 0;
}

}  // namespace snapdoc::bench
