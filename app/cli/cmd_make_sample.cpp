// snapdoc-cli make-sample: writes a generated long report (the demo's 100K-token sample, which is
// made at first run instead of being committed) and its suggested questions beside it.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "app/eval/document_files.h"
#include "engine/common/error.h"

namespace snapdoc::cli {

int cmd_make_sample(int argc, char** argv) {
    auto flags = model_flags();
    flags.insert(flags.end(), {{{"--tokens"}}, {{"--questions"}}, {{"--facts-per-1k"}}, {{"--seed"}}, {{"--out"}}});
    const Args args(flags, argc, argv, 2);
    const int tokens = args.integer("tokens", 100000);
    const int questions = args.integer("questions", 5);
    const int per_1k = args.integer("facts-per-1k", 2);
    if (tokens < 64 || tokens > 4'000'000) throw Error("--tokens must lie in [64, 4000000]");
    if (questions < 1 || questions > 100) throw Error("--questions must lie in [1, 100]");
    if (per_1k < 0 || per_1k > 15) throw Error("--facts-per-1k must lie in [0, 15]");
    const std::string out = args.required("out");
    // Lengths are counted with the model's tokenizer, so "100000 tokens" means the model's tokens.
    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/true, /*need_backend=*/false);
    const eval::TokenCounter count = [&](std::string_view s) { return static_cast<int>(lm.tokenizer->encode(s).size()) + 1; };
    eval::Rng rng(static_cast<uint64_t>(args.integer64("seed", 7)));
    const eval::SampleDocument s = eval::sample_document(rng, tokens, count, questions, per_1k);
    eval::write_document_files(out, s.document.text, s.asked);
    std::printf("wrote %s (about %d tokens, %zu facts) and %s (%zu questions)\n", out.c_str(),
                s.document.estimated_tokens, s.document.facts.size(), eval::questions_path(out).string().c_str(),
                s.asked.size());
    return 0;
}

}  // namespace snapdoc::cli
