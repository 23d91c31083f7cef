// Long-context speed of the paths a user waits on, at several context lengths, for side-by-side
// runs with llama.cpp (scripts/bench-longctx-vs-llamacpp.sh runs bench/llamacpp/llama_timer the
// same way): prefill tok/s (token-major into one full cache — what llama.cpp does — and snapdoc's
// layer-major document prefill + question), and decode tok/s at that depth on the full cache and on
// a SnapKV-compressed one. Model load is outside every timing.
// With --decode-rounds R the full-cache decode runs R times, each followed by a read-bandwidth
// measurement on the same threads over the model file's own mapping (cpu::measure_stream_gbs: the
// pages decode streams): this shared machine's speed drifts by a third within minutes, so a
// roofline measured apart from the decode it divides is noise. decode_full is then the median
// round, roof_full the median of the rounds' tok/s ÷ (bandwidth ÷ bytes a token reads, K/V as f16).
#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include "app/common/args.h"
#include "app/common/kv_type_flags.h"
#include "bench/bench_util.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/hardware_probe.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill.h"

namespace snapdoc::bench {

int bench_longctx(int argc, char** argv) {
    std::vector<cli::FlagSpec> flags = {{{"-m", "--model"}},    {{"--contexts"}},   {{"--budget"}},
                                        {{"--window"}},         {{"--gen-tokens"}}, {{"-t", "--threads"}},
                                        {{"--no-token-major"}, false}, {{"--decode-rounds"}}, {{"--device"}}};
    for (auto& f : cli::kv_type_flags()) flags.push_back(std::move(f));
    const cli::Args args(flags, argc, argv, 2);
    if (!args.has("model")) throw Error("-m MODEL is required");
    const auto contexts = cli::parse_int_list(args.str("contexts", "8192,32768"), "--contexts");
    const int gen = args.integer("gen-tokens", 64);
    const int rounds = args.integer("decode-rounds", 1);
    if (rounds < 1) throw Error("--decode-rounds must be >= 1");
    constexpr int kQuestion = 24;
    SnapKvConfig snap;
    snap.budget = args.integer("budget", 1024);
    snap.window = args.integer("window", 32);
    snap.validate();
    SnapKvConfig full = snap;
    full.enabled = false;

    const Model model = load_model(args.str("model"));
    BackendOptions opts;
    opts.threads = args.integer("threads", 0);
    opts.kv_f16 = cli::kv_f16_from_flags(args);
    for (int ctx : contexts) opts.context_length = std::max(opts.context_length, ctx + gen + 8);
    auto backend = make_backend(model, opts, args.str("device", "cpu"));
    const ModelConfig& c = model.config;
    std::printf("model %s, %s, %d threads, K/V cache %s, SnapKV budget %d window %d, %d decode tokens\n",
                args.str("model").c_str(), backend->name().c_str(),
                opts.threads ? opts.threads : static_cast<int>(std::thread::hardware_concurrency()),
                opts.kv_f16 ? "f16" : "f32", snap.budget,
                snap.window, gen);
    const int threads = opts.threads ? opts.threads : static_cast<int>(std::thread::hardware_concurrency());
    const DecodeBytes bytes = decode_bytes(args.str("model"));
    std::printf("%8s %14s %14s %12s %12s %10s\n", "context", "prefill_tm", "prefill_lm", "decode_full", "decode_snap",
                "roof_full");
    for (int ctx : contexts) {
        if (ctx <= kQuestion + 1) throw Error("--contexts must exceed 25 (a 24-token question follows the document)");
        const auto ids = random_ids(ctx, c.vocab_size, 42);
        double token_major_tps = 0;
        if (!args.has("no-token-major")) {
            auto kv = make_full_kv_cache(*backend, ctx);
            const auto t0 = Clock::now();
            prefill(*backend, ids, 0, *kv);
            token_major_tps = ctx / seconds_since(t0);
        }
        DocumentSession session(*backend);
        const auto t0 = Clock::now();
        session.prefill_document(std::span(ids).first(ctx - kQuestion));
        session.set_question(std::span(ids).last(kQuestion), snap.window);
        const double layer_major_tps = ctx / seconds_since(t0);
        std::vector<double> tps, roof;
        for (int r = 0; r < rounds; ++r) {
            tps.push_back(decode_tps(session, *session.select(full), gen));
            if (rounds > 1) {
                const MappedFile& file = *model.mappings.front();
                const double bw = cpu::measure_stream_gbs(file.data(), file.size(), threads, 0.3);
                roof.push_back(tps.back() * bytes.per_token(ctx, 2) / (bw * 1e9));
            }
        }
        const double full_tps = median(tps);
        // A prompt within the budget is not compressed (SnapKV keeps it all): no SnapKV figure.
        const bool compressed = ctx > kQuestion + snap.budget;
        const double snap_tps = compressed ? decode_tps(session, *session.select(snap), gen) : 0.0;
        std::printf("%8d %14.1f %14.1f %12.2f %12.2f %9.0f%%\n", ctx, token_major_tps, layer_major_tps, full_tps,
                    snap_tps, roof.empty() ? 0.0 : 100.0 * median(roof));
        std::fflush(stdout);
    }
    std::printf("(tok/s; prefill_tm: token-major into one full cache, 0 when skipped; prefill_lm: layer-major "
                "document + question, the app's path; decode_snap 0: the prompt is within the budget; roof_full: "
                "of the bandwidth roofline, 0 without --decode-rounds > 1)\n");
    return 0;
}

}  // namespace snapdoc::bench
