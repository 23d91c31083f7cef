#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/session/context_check.h"
#include "engine/session/prefill.h"

namespace snapdoc::cli {

// Runs the given ids as one prompt and writes every position's logits, [T, vocab] little-endian f32.
// --ctx N sets the context size the model runs with (llama.cpp's n_ctx; default the model's declared
// context), which selects Phi-3.5's short or long LongRoPE factors as llama.cpp does.
// --positions p,q,... writes only those positions' rows, in that order ([count, vocab]): a long
// prompt's few checked rows without every row's output head (scripts/modelzoo-accuracy.py).
int cmd_eval(int argc, char** argv) {
    auto flags = model_flags();
    flags.insert(flags.end(), {{{"--ids"}}, {{"--logits-out"}}, {{"--ctx"}}, {{"--positions"}}, {{"--ignore-context"}, false}});
    const Args args(flags, argc, argv, 2);
    const auto ids = parse_int_list(args.required("ids"), "--ids");
    if (ids.empty()) throw Error("--ids is empty");
    const std::string out_path = args.required("logits-out");
    LoadedModel lm = load_for_cli_interruptible(args, /*need_tokenizer=*/false, /*need_backend=*/true);
    check_context_room(static_cast<int64_t>(ids.size()), 0, lm.backend->config().context_length, "the --ids",
                       args.has("ignore-context"));

    auto kv = make_full_kv_cache(*lm.backend, static_cast<int>(ids.size()));
    std::vector<float> logits;
    PrefillOptions opts;
    opts.cancel = &install_interrupt_flag();
    if (args.has("positions")) {
        opts.logits_positions = parse_int_list(args.str("positions"), "--positions");
        if (opts.logits_positions.empty()) throw Error("--positions is empty");
    }
    prefill(*lm.backend, ids, 0, *kv, opts, &logits);

    static_assert(sizeof(float) == 4);
    AtomicFileWriter out(out_path);
    out.write(logits.data(), logits.size() * sizeof(float));
    out.commit();
    const int vocab = lm.model->config.vocab_size;
    std::fprintf(stderr, "wrote %zu x %d logits to %s\n", logits.size() / vocab, vocab, out_path.c_str());
    return 0;
}

}  // namespace snapdoc::cli
