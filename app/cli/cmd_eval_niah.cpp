// snapdoc-cli eval-niah: needle-in-a-haystack accuracy per context length × needle depth, full KV
// vs SnapKV budgets; CSV tables and one PNG heatmap per setting.
#include <cstdio>
#include <filesystem>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "app/cli/snapkv_flags.h"
#include "app/eval/heatmap.h"
#include "app/eval/niah.h"
#include "app/eval/output_paths.h"
#include "engine/common/error.h"
#include "engine/session/context_check.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

int cmd_eval_niah(int argc, char** argv) {
    auto flags = model_flags();
    const auto kvf = snapkv_flags();
    flags.insert(flags.end(), kvf.begin(), kvf.end());
    flags.insert(flags.end(), {{{"--lengths"}}, {{"--depths"}}, {{"--trials"}}, {{"--budgets"}}, {{"--seed"}},
                               {{"--facts-per-1k"}}, {{"-n", "--n-predict"}}, {{"--csv"}}, {{"--trials-csv"}},
                               {{"--png"}}, {{"--docs-out"}}, {{"--template"}}, {{"--quiet"}, false}, {{"--ignore-context"}, false}});
    const Args args(flags, argc, argv, 2);
    if (args.has("budget") || args.has("full"))
        throw Error("eval-niah compares several budgets: use --budgets full,64,128,10% instead of --budget/--full");
    eval::NiahOptions o;
    o.lengths = parse_int_list(args.str("lengths", "512,1024"), "--lengths");
    o.depths.clear();
    for (int d : parse_int_list(args.str("depths", "0,10,20,30,40,50,60,70,80,90,100"), "--depths")) {
        if (d < 0 || d > 100) throw Error("--depths: " + std::to_string(d) + " is not a percentage in [0, 100]");
        o.depths.push_back(d / 100.0);
    }
    o.trials = args.integer("trials", 4);
    o.budgets = eval::parse_budgets(args.str("budgets", "full,64,128,256"));
    o.snapkv = snapkv_config_from(args);
    o.seed = static_cast<uint64_t>(args.integer64("seed", 1));
    o.facts_per_1k = args.integer("facts-per-1k", 10);
    o.max_new_tokens = n_predict_flag(args, 24);
    o.docs_out = args.str("docs-out");

    LoadedModel lm = load_for_cli_interruptible(args, /*need_tokenizer=*/true, /*need_backend=*/true);
    const auto& cancel = install_interrupt_flag();
    const ChatTemplateKind kind = choose_chat_template(lm.model->chat_template, args.str("template"));
    // Up front, before the first trial: a length past the context is refused (it used to fail
    // deep inside a trial with an internal message).
    for (int l : o.lengths)
        check_context_room(l, 0, lm.backend->config().context_length, "eval-niah --lengths " + std::to_string(l),
                           args.has("ignore-context"));
    const bool quiet = args.has("quiet");
    const eval::NiahReport report = eval::run_niah(
        *lm.backend, *lm.tokenizer, kind, o, [&](const eval::NiahTrialResult& r) {
            if (cancel.load()) throw Cancelled();  // Ctrl-C: stop after this trial; main() reports it
            if (quiet) return;
            std::fprintf(stderr, "len %d depth %3.0f%% trial %d (%d tokens): %s ->", o.lengths[r.length_index],
                         o.depths[r.depth_index] * 100, r.trial, r.prompt_tokens, r.expected.c_str());
            for (std::size_t s = 0; s < r.answers.size(); ++s)
                std::fprintf(stderr, " %s:%s", o.budgets[s].label().c_str(), r.correct[s] ? "ok" : "MISS");
            std::fputc('\n', stderr);
        });

    std::printf("%-10s", "setting");
    for (int l : o.lengths) std::printf(" %8d", l);
    std::printf(" %8s %13s\n", "all", "needle_recall");
    for (std::size_t s = 0; s < o.budgets.size(); ++s) {
        std::printf("%-10s", o.budgets[s].label().c_str());
        for (std::size_t l = 0; l < o.lengths.size(); ++l) std::printf(" %8.3f", report.accuracy(s, static_cast<int>(l)));
        double rs = 0;
        int rn = 0;
        for (const auto& per_len : report.cells[s])
            for (const auto& c : per_len) {
                rs += c.recall_sum;
                rn += c.recall_n;
            }
        std::printf(" %8.3f %13.3f\n", report.accuracy(s), rn ? rs / rn : 0.0);
    }
    std::printf("(exact-match accuracy; %d trials per length x depth cell, %zu depths)\n", o.trials, o.depths.size());

    if (args.has("csv")) report.csv().write(args.str("csv"));
    if (args.has("trials-csv")) report.trials_csv().write(args.str("trials-csv"));
    if (args.has("png")) {
        for (std::size_t s = 0; s < o.budgets.size(); ++s) {
            eval::HeatmapSpec h;
            h.title = "NIAH " + eval::model_label(lm.model->path) + ": " +
                      (o.budgets[s].kind == eval::BudgetSetting::Kind::Full ? std::string("FULL KV")
                                                                            : "SNAPKV " + o.budgets[s].label()) +
                      " (" + std::to_string(o.trials) + " TRIALS/CELL)";
            for (int l : o.lengths) h.col_labels.push_back(std::to_string(l));
            for (double d : o.depths) h.row_labels.push_back(std::to_string(static_cast<int>(d * 100 + 0.5)) + "%");
            for (std::size_t d = 0; d < o.depths.size(); ++d)
                for (std::size_t l = 0; l < o.lengths.size(); ++l) h.values.push_back(report.cell(s, l, d).accuracy());
            const std::filesystem::path path = eval::setting_path(args.str("png"), o.budgets[s].file_tag());
            eval::write_png(path, eval::render_heatmap(h));
            std::fprintf(stderr, "wrote %s\n", path.string().c_str());
        }
    }
    return 0;
}

}  // namespace snapdoc::cli
