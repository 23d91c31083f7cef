// snapdoc-cli eval-multi: several questions about different facts of one document, answered with
// the full cache, re-snapping per question, one compression chosen by the first question, and a
// query-agnostic compression; accuracy, needle recall and kept-set overlap per strategy.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "app/cli/snapkv_flags.h"
#include "app/eval/multi.h"
#include "engine/common/error.h"
#include "engine/session/context_check.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

int cmd_eval_multi(int argc, char** argv) {
    auto flags = model_flags();
    const auto kvf = snapkv_flags();
    flags.insert(flags.end(), kvf.begin(), kvf.end());
    flags.insert(flags.end(), {{{"--length"}}, {{"--questions"}}, {{"--docs"}}, {{"--budgets"}}, {{"--seed"}},
                               {{"--facts-per-1k"}}, {{"-n", "--n-predict"}}, {{"--csv"}}, {{"--template"}},
                               {{"--quiet"}, false}, {{"--ignore-context"}, false}});
    const Args args(flags, argc, argv, 2);
    if (args.has("budget") || args.has("full"))
        throw Error("eval-multi takes --budgets (e.g. --budgets 10%,128) instead of --budget/--full");
    eval::MultiOptions o;
    o.length = args.integer("length", 1024);
    o.questions = args.integer("questions", 4);
    o.documents = args.integer("docs", 25);
    o.facts_per_1k = args.integer("facts-per-1k", 10);
    o.budgets = eval::parse_budgets(args.str("budgets", "10%"));
    o.snapkv = snapkv_config_from(args);
    o.seed = static_cast<uint64_t>(args.integer64("seed", 1));
    o.max_new_tokens = n_predict_flag(args, 24);

    LoadedModel lm = load_for_cli_interruptible(args, /*need_tokenizer=*/true, /*need_backend=*/true);
    const ChatTemplateKind kind = choose_chat_template(lm.model->chat_template, args.str("template"));
    check_context_room(o.length, 0, lm.backend->config().context_length, "eval-multi --length " + std::to_string(o.length),
                       args.has("ignore-context"));
    const bool quiet = args.has("quiet");
    const auto& cancel = install_interrupt_flag();
    const eval::MultiReport report =
        eval::run_multi(*lm.backend, *lm.tokenizer, kind, o, [&](int d, const eval::MultiReport& so_far) {
            if (cancel.load()) throw Cancelled();  // Ctrl-C: stop after this document; main() reports it
            if (quiet) return;
            std::fprintf(stderr, "document %d/%d:", d + 1, o.documents);
            for (const auto& r : so_far.rows)
                std::fprintf(stderr, " %s/%s %d/%d", r.budget.c_str(),
                             std::string(eval::multi_strategy_name(r.strategy)).c_str(), r.correct, r.questions);
            std::fputc('\n', stderr);
        });

    std::printf("%-8s %-9s %9s %9s %14s %13s %12s\n", "budget", "strategy", "accuracy", "later_q", "needle_recall",
                "kept_overlap", "mean_budget");
    for (const auto& r : report.rows) {
        const double recall = r.recall_n ? r.recall_sum / r.recall_n : 0.0;
        const double overlap = r.jaccard_n ? r.jaccard_sum / r.jaccard_n : 0.0;
        std::printf("%-8s %-9s %9.3f %9.3f %14.3f %13.3f %12.1f\n", r.budget.c_str(),
                    std::string(eval::multi_strategy_name(r.strategy)).c_str(), r.accuracy(), r.later_accuracy(), recall,
                    overlap, r.questions ? r.budget_sum / r.questions : 0.0);
    }
    std::printf("(%d documents of ~%d tokens, %d questions each; later_q = questions after the first)\n", o.documents,
                o.length, o.questions);
    if (args.has("csv")) report.csv().write(args.str("csv"));
    return 0;
}

}  // namespace snapdoc::cli
