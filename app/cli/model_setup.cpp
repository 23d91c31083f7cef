#include "app/cli/model_setup.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "app/cli/hub_model.h"
#include "app/common/gpu_self_check_report.h"
#include "app/common/kv_type_flags.h"
#include "engine/common/error.h"
#include "engine/common/logging.h"
#include "engine/common/memory_stats.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/gpu_self_check.h"
#include "engine/session/context_check.h"

namespace snapdoc::cli {

std::vector<FlagSpec> model_flags() {
    std::vector<FlagSpec> flags = {{{"-m", "--model"}}, {{"-t", "--threads"}}, {{"--log-level"}}, {{"--device"}},
                                   {{"--exact-prefill"}, false}, {{"--precise-activations"}, false},
                                   {{"--gpu-self-check"}, false}};
    for (auto& f : kv_type_flags()) flags.push_back(std::move(f));
    for (auto& f : hub_flags()) flags.push_back(std::move(f));
    return flags;
}

LoadedModel load_for_cli(const Args& args, bool need_tokenizer, bool need_backend) {
    init_logging(args.str("log-level"));
    LoadedModel lm;
    lm.model = std::make_unique<Model>(load_model(model_path_from_args(args)));
    if (lm.model->has_tokenizer() || need_tokenizer) lm.tokenizer = Tokenizer::from_model(*lm.model);
    if (need_backend) {
        // --ctx (subcommands that offer it): the context size, as llama.cpp's -c; 0 = the model's own.
        const int ctx = args.integer("ctx", 0);
        if (ctx < 0) throw Error("--ctx must be >= 0");
        lm.backend = make_cli_backend(args, *lm.model, ctx);
    }
    return lm;
}

LoadedModel load_for_cli_interruptible(const Args& args, bool need_tokenizer, bool need_backend) {
    const std::atomic<bool>& interrupted = install_interrupt_flag();
    LoadedModel lm = load_for_cli(args, need_tokenizer, need_backend);
    if (interrupted.load()) throw Cancelled();
    return lm;
}

std::unique_ptr<Backend> make_cli_backend(const Args& args, const Model& model, int context_length) {
    check_memory_for_run(model, 0);  // `info` still describes a model too big to run
    BackendOptions opts;
    opts.threads = threads_flag(args);
    opts.context_length = context_length;
    opts.exact_prefill = args.has("exact-prefill");
    opts.precise_activations = args.has("precise-activations");
    opts.kv_f16 = kv_f16_from_flags(args);
    // A CUDA device is checked against the CPU before it is trusted, once per device, driver and
    // version (docs/gpu-self-check.md); --gpu-self-check runs the check again and prints its verdict.
    const bool force_check = args.has("gpu-self-check");
    set_gpu_self_check_settings({true, force_check, {}});
    const uint64_t before = last_gpu_self_check().serial;
    auto backend = make_backend(model, opts, args.str("device", "auto"));
    // A fallback is already a warning on stderr (the engine's log); the forced check always says how it went.
    GpuSelfCheckReport report = last_gpu_self_check();
    if (report.serial == before) report = {};
    if (force_check) std::fprintf(stderr, "%s\n", gpu_self_check_line(report, backend->name()).c_str());
    return backend;
}

void check_memory_for_run(const Model& model, int64_t tokens) {
    const int64_t ram = physical_memory_bytes();
    const int64_t need = estimate_run_bytes(model, tokens);
    if (ram <= 0 || need <= ram) return;
    throw Error("'" + model.path.string() + "' needs about " + format_bytes(need) + (tokens > 0 ? " for " + std::to_string(tokens) + " tokens" : std::string(" for its weights")) +
                " but this machine has " + format_bytes(ram) + " of RAM");
}

int threads_flag(const Args& args) {
    const long long n = args.integer64("threads", 0);
    if (n < 0) throw Error("--threads must be >= 0");
    if (n > kMaxThreads)
        throw Error("--threads " + std::to_string(n) + " is more than the " + std::to_string(kMaxThreads) +
                    " supported (0 = one per core)");
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    if (cores > 0 && n > cores) {
        std::fprintf(stderr, "note: --threads %lld is more than the %d cores; using %d\n", n, cores, cores);
        return cores;
    }
    return static_cast<int>(n);
}

int n_predict_flag(const Args& args, int fallback) {
    const long long n = args.integer64("n-predict", fallback);
    if (n < 0 || n > kMaxNewTokens)
        throw Error("-n " + std::to_string(n) + " is outside [0, " + std::to_string(kMaxNewTokens) + "]");
    return static_cast<int>(n);
}

namespace {
std::atomic<bool> g_interrupted{false};
void on_signal(int) {
    if (g_interrupted.exchange(true)) std::_Exit(130);
}
}  // namespace

const std::atomic<bool>& install_interrupt_flag() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    return g_interrupted;
}

}  // namespace snapdoc::cli
