#include "app/cli/model_setup.h"

#include <csignal>
#include <cstdlib>

#include "engine/common/error.h"
#include "engine/common/logging.h"
#include "engine/runtime/backend_factory.h"

namespace snapdoc::cli {

std::vector<FlagSpec> model_flags() {
    return {{{"-m", "--model"}}, {{"-t", "--threads"}}, {{"--log-level"}}, {{"--device"}}};
}

LoadedModel load_for_cli(const Args& args, bool need_tokenizer, bool need_backend) {
    init_logging(args.str("log-level"));
    LoadedModel lm;
    lm.model = std::make_unique<Model>(load_model(args.required("model")));
    if (lm.model->has_tokenizer() || need_tokenizer) lm.tokenizer = Tokenizer::from_model(*lm.model);
    if (need_backend) {
        BackendOptions opts;
        opts.threads = args.integer("threads", 0);
        if (opts.threads < 0) throw Error("--threads must be >= 0");
        // --ctx (subcommands that offer it): the context size, as llama.cpp's -c; 0 = the model's own.
        opts.context_length = args.integer("ctx", 0);
        if (opts.context_length < 0) throw Error("--ctx must be >= 0");
        lm.backend = make_backend(*lm.model, opts, args.str("device", "auto"));
    }
    return lm;
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
