#include "app/eval/niah.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "app/eval/document_files.h"
#include "app/eval/haystack.h"
#include "app/eval/kept_sets.h"
#include "engine/common/error.h"
#include "engine/session/document_chat.h"

namespace snapdoc::eval {

std::vector<int32_t> value_positions(const Tokenizer& tokenizer, const std::vector<int32_t>& document_ids,
                                     const std::string& value) {
    // The value as it reads in "... is 7391.": the ids of "is 7391" after those of "is" when the
    // vocabulary splits it that way (a lone space piece dropped), else all of them (the demo model's
    // vocabulary has "is 7391" as one piece); the ids of the value alone as a last resort.
    const std::vector<int32_t> with_verb = tokenizer.encode("is " + value);
    const std::vector<int32_t> verb = tokenizer.encode("is");
    std::vector<int32_t> needle = with_verb;
    if (with_verb.size() > verb.size() && std::equal(verb.begin(), verb.end(), with_verb.begin())) {
        needle.assign(with_verb.begin() + static_cast<std::ptrdiff_t>(verb.size()), with_verb.end());
        while (needle.size() > 1 &&
               tokenizer.decode({needle.front()}).find_first_not_of(" \xE2\x96\x81") == std::string::npos)
            needle.erase(needle.begin());
    }
    std::vector<int32_t> pos = find_tokens(document_ids, needle);
    if (pos.empty()) pos = find_tokens(document_ids, tokenizer.encode(value));
    return pos;
}

std::string niah_document_name(int length, double depth, int trial) {
    return "niah-L" + std::to_string(length) + "-d" + std::to_string(std::lround(depth * 100)) + "-t" +
           std::to_string(trial) + ".txt";
}

double NiahReport::accuracy(std::size_t s, int length_index) const {
    int n = 0, c = 0;
    for (std::size_t l = 0; l < cells[s].size(); ++l) {
        if (length_index >= 0 && static_cast<int>(l) != length_index) continue;
        for (const NiahCell& cell : cells[s][l]) {
            n += cell.trials;
            c += cell.correct;
        }
    }
    return n ? static_cast<double>(c) / n : std::numeric_limits<double>::quiet_NaN();
}

CsvTable NiahReport::csv() const {
    CsvTable t({"setting", "length", "depth_percent", "trials", "correct", "accuracy", "mean_prompt_tokens",
                "mean_budget", "needle_recall"});
    for (std::size_t s = 0; s < cells.size(); ++s)
        for (std::size_t l = 0; l < cells[s].size(); ++l)
            for (std::size_t d = 0; d < cells[s][l].size(); ++d) {
                const NiahCell& c = cells[s][l][d];
                const double n = std::max(1, c.trials);
                t.add_row({options.budgets[s].label(), std::to_string(options.lengths[l]),
                           csv_number(options.depths[d] * 100, 1), std::to_string(c.trials), std::to_string(c.correct),
                           csv_number(c.accuracy()), csv_number(c.prompt_tokens_sum / n, 1),
                           options.budgets[s].kind == BudgetSetting::Kind::Full ? "full" : csv_number(c.budget_sum / n, 1),
                           csv_number(c.recall_n ? c.recall_sum / c.recall_n : std::nan(""))});
            }
    return t;
}

CsvTable NiahReport::trials_csv() const {
    CsvTable t({"setting", "length", "depth_percent", "trial", "prompt_tokens", "budget", "question", "expected",
                "answer", "correct", "needle_recall"});
    for (const NiahTrialResult& r : trials)
        for (std::size_t s = 0; s < r.answers.size(); ++s)
            t.add_row({options.budgets[s].label(), std::to_string(options.lengths[r.length_index]),
                       csv_number(options.depths[r.depth_index] * 100, 1), std::to_string(r.trial),
                       std::to_string(r.prompt_tokens), r.budgets[s] ? std::to_string(r.budgets[s]) : "full", r.question,
                       r.expected, r.answers[s], r.correct[s] ? "1" : "0", csv_number(r.needle_recall[s])});
    return t;
}

NiahReport run_niah(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind, const NiahOptions& options,
                    const NiahProgress& progress) {
    if (options.lengths.empty() || options.depths.empty()) throw Error("eval-niah: give at least one length and depth");
    if (options.trials < 1) throw Error("eval-niah: --trials must be >= 1");
    if (options.budgets.empty()) throw Error("eval-niah: give at least one budget setting");
    for (double d : options.depths)
        if (!(d >= 0 && d <= 1)) throw Error("eval-niah: depths must lie in [0, 100] percent");
    for (int l : options.lengths)
        if (l < 32) throw Error("eval-niah: lengths must be >= 32 tokens");

    NiahReport report;
    report.options = options;
    report.cells.assign(options.budgets.size(),
                        std::vector<std::vector<NiahCell>>(options.lengths.size(),
                                                           std::vector<NiahCell>(options.depths.size())));
    const int n_layers = backend.config().n_layers;
    DocumentChat chat(backend, tokenizer, kind);
    const TokenCounter count = [&](std::string_view s) { return static_cast<int>(tokenizer.encode(s).size()) + 1; };

    for (std::size_t li = 0; li < options.lengths.size(); ++li)
        for (std::size_t di = 0; di < options.depths.size(); ++di)
            for (int t = 0; t < options.trials; ++t) {
                const int length = options.lengths[li];
                const double depth = options.depths[di];
                Rng rng(mix_seed({options.seed, static_cast<uint64_t>(length),
                                  static_cast<uint64_t>(std::llround(depth * 1e6)), static_cast<uint64_t>(t)}));
                const Needle nd = needle_document(rng, length, count, depth, options.facts_per_1k);
                if (!options.docs_out.empty())
                    write_document_files(std::filesystem::path(options.docs_out) / niah_document_name(length, depth, t),
                                         nd.document.text, {nd.needle});
                const int D = chat.load_document(nd.document.text);
                const std::vector<int32_t> doc_ids = build_document_part(kind, tokenizer, {}, nd.document.text);
                const std::vector<int32_t> vpos = value_positions(tokenizer, doc_ids, nd.needle.value);

                NiahTrialResult r;
                r.length_index = static_cast<int>(li);
                r.depth_index = static_cast<int>(di);
                r.trial = t;
                r.question = nd.needle.question();
                r.expected = nd.needle.value;
                r.prompt_tokens = chat.prompt_tokens_for(r.question);
                for (std::size_t s = 0; s < options.budgets.size(); ++s) {
                    AskOptions ask;
                    ask.snapkv = options.budgets[s].config_for(options.snapkv, r.prompt_tokens);
                    ask.max_new_tokens = options.max_new_tokens;
                    const AskResult a = chat.ask(r.question, ask);
                    const bool ok = answer_matches(a.answer, nd.needle);
                    double recall = 1.0;
                    if (a.selection->compressed)
                        recall = needle_recall(document_keep(*a.selection, D, n_layers, a.selection->cache_heads), vpos);
                    r.answers.push_back(a.answer);
                    r.budgets.push_back(ask.snapkv.enabled ? ask.snapkv.budget : 0);
                    r.correct.push_back(ok);
                    r.needle_recall.push_back(recall);
                    NiahCell& c = report.cells[s][li][di];
                    c.trials++;
                    c.correct += ok;
                    c.prompt_tokens_sum += r.prompt_tokens;
                    c.budget_sum += ask.snapkv.enabled ? ask.snapkv.budget : r.prompt_tokens;
                    if (!std::isnan(recall)) {
                        c.recall_sum += recall;
                        c.recall_n++;
                    }
                }
                if (progress) progress(r);
                report.trials.push_back(std::move(r));
            }
    return report;
}

}  // namespace snapdoc::eval
