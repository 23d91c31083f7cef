#include "app/eval/multi.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "app/eval/haystack.h"
#include "app/eval/kept_sets.h"
#include "app/eval/niah.h"
#include "engine/common/error.h"
#include "engine/session/document_chat.h"
#include "engine/session/document_session.h"

namespace snapdoc::eval {

std::string_view multi_strategy_name(MultiStrategy s) {
    switch (s) {
        case MultiStrategy::Full: return "full";
        case MultiStrategy::Resnap: return "resnap";
        case MultiStrategy::Once: return "once";
        case MultiStrategy::Agnostic: return "agnostic";
    }
    return "?";
}

CsvTable MultiReport::csv() const {
    CsvTable t({"budget", "strategy", "length", "documents", "questions", "correct", "accuracy", "later_accuracy",
                "needle_recall", "kept_overlap", "mean_budget"});
    for (const MultiRow& r : rows)
        t.add_row({r.budget, std::string(multi_strategy_name(r.strategy)), std::to_string(options.length),
                   std::to_string(options.documents), std::to_string(r.questions), std::to_string(r.correct),
                   csv_number(r.accuracy()), csv_number(r.later_accuracy()),
                   csv_number(r.recall_n ? r.recall_sum / r.recall_n : std::nan("")),
                   csv_number(r.jaccard_n ? r.jaccard_sum / r.jaccard_n : std::nan("")),
                   r.strategy == MultiStrategy::Full ? "full"
                                                     : csv_number(r.questions ? r.budget_sum / r.questions : 0, 1)});
    return t;
}

namespace {

// Decodes an answer for the question currently set in `session` with a given selection.
std::string answer_with(DocumentSession& session, const Tokenizer& tok, ChatTemplateKind kind, const Selection& sel,
                        int max_new_tokens) {
    GenerationRequest req;
    req.max_new_tokens = max_new_tokens;
    req.stop_tokens = end_of_turn_ids(kind, tok);
    StreamDecoder stream(tok);
    std::string text;
    req.on_token = [&](int32_t id) { text += stream.push(id); };
    session.answer(sel, req);
    return text + stream.flush();
}

void record(MultiRow& row, bool first, bool ok, double recall, int budget) {
    row.questions++;
    row.correct += ok;
    if (!first) {
        row.later_questions++;
        row.later_correct += ok;
    }
    if (!std::isnan(recall)) {
        row.recall_sum += recall;
        row.recall_n++;
    }
    row.budget_sum += budget;
}

}  // namespace

MultiReport run_multi(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind, const MultiOptions& o,
                      const MultiProgress& progress) {
    if (o.questions < 2) throw Error("eval-multi: --questions must be >= 2");
    if (o.documents < 1) throw Error("eval-multi: --docs must be >= 1");
    if (o.length < 64) throw Error("eval-multi: --length must be >= 64 tokens");
    MultiReport report;
    report.options = o;
    report.rows.push_back({"full", MultiStrategy::Full});
    std::vector<BudgetSetting> budgets;
    for (const BudgetSetting& b : o.budgets)
        if (b.kind != BudgetSetting::Kind::Full) budgets.push_back(b);
    if (budgets.empty()) throw Error("eval-multi: give at least one compressed budget (e.g. --budgets 10%)");
    for (const BudgetSetting& b : budgets)
        for (MultiStrategy s : {MultiStrategy::Resnap, MultiStrategy::Once, MultiStrategy::Agnostic})
            report.rows.push_back({b.label(), s});

    const int n_layers = backend.config().n_layers;
    DocumentChat chat(backend, tokenizer, kind);
    DocumentSession& session = chat.session();
    const TokenCounter count = [&](std::string_view s) { return static_cast<int>(tokenizer.encode(s).size()) + 1; };

    for (int d = 0; d < o.documents; ++d) {
        Rng rng(mix_seed({o.seed, static_cast<uint64_t>(o.length), static_cast<uint64_t>(d), 0x6d756c7469ull}));
        const int n_facts = std::max(o.questions, static_cast<int>(std::lround(o.length * o.facts_per_1k / 1000.0)));
        std::vector<Fact> facts = make_facts(rng, n_facts, 0.5);
        std::vector<double> depths(facts.size());
        for (int i = 0; i < n_facts; ++i) depths[i] = i < o.questions ? (i + 0.5) / o.questions : rng.real();
        const Document doc = build_document(rng, o.length, count, facts, depths);
        std::vector<Fact> asked(facts.begin(), facts.begin() + o.questions);
        for (int i = o.questions - 1; i > 0; --i) std::swap(asked[i], asked[rng.uniform(i + 1)]);

        const int D = chat.load_document(doc.text);
        const std::vector<int32_t> doc_ids = build_document_part(kind, tokenizer, {}, doc.text);
        std::vector<std::vector<int32_t>> vpos, qparts;
        for (const Fact& f : asked) {
            vpos.push_back(value_positions(tokenizer, doc_ids, f.value));
            qparts.push_back(build_question_part(kind, tokenizer, f.question()));
        }

        for (int i = 0; i < o.questions; ++i) {
            AskOptions ask;
            ask.snapkv.enabled = false;
            ask.max_new_tokens = o.max_new_tokens;
            const AskResult a = chat.ask(asked[i].question(), ask);
            record(report.rows[0], i == 0, answer_matches(a.answer, asked[i]), 1.0, D);
        }
        if (o.questions > 1) {
            report.rows[0].jaccard_sum += 1.0 * o.questions * (o.questions - 1) / 2;
            report.rows[0].jaccard_n += o.questions * (o.questions - 1) / 2;
        }

        for (std::size_t b = 0; b < budgets.size(); ++b) {
            MultiRow& resnap = report.rows[1 + 3 * b];
            MultiRow& once = report.rows[2 + 3 * b];
            MultiRow& agnostic = report.rows[3 + 3 * b];
            std::vector<DocKeep> keeps;
            int group = 1;
            SnapKvConfig first_cfg;
            for (int i = 0; i < o.questions; ++i) {
                const int L = D + static_cast<int>(qparts[i].size());
                AskOptions ask;
                ask.snapkv = budgets[b].config_for(o.snapkv, L);
                ask.max_new_tokens = o.max_new_tokens;
                const AskResult a = chat.ask(asked[i].question(), ask);
                if (i == 0) {
                    group = a.selection->group;
                    first_cfg = ask.snapkv;
                }
                const int heads = a.selection->compressed ? a.selection->cache_heads : backend.config().n_kv_heads;
                keeps.push_back(document_keep(*a.selection, D, n_layers, heads));
                const bool ok = answer_matches(a.answer, asked[i]);
                const double recall = needle_recall(keeps.back(), vpos[i]);
                record(resnap, i == 0, ok, recall, ask.snapkv.budget);
                if (i == 0) record(once, true, ok, recall, ask.snapkv.budget);
            }
            for (int i = 0; i < o.questions; ++i)
                for (int j = i + 1; j < o.questions; ++j) {
                    resnap.jaccard_sum += mean_jaccard(keeps[i], keeps[j]);
                    resnap.jaccard_n++;
                }
            // Compress once: question 1's kept document positions serve every later question.
            for (int i = 1; i < o.questions; ++i) {
                const int L = D + static_cast<int>(qparts[i].size());
                const SnapKvConfig cfg = budgets[b].config_for(o.snapkv, L);
                session.set_question(qparts[i], cfg.window);
                const auto sel = selection_from_keep(keeps[0], cfg, L, session.window_scores().window, group);
                const std::string ans = answer_with(session, tokenizer, kind, *sel, o.max_new_tokens);
                record(once, false, answer_matches(ans, asked[i]), needle_recall(keeps[0], vpos[i]), cfg.budget);
            }
            once.jaccard_sum += 1.0 * o.questions * (o.questions - 1) / 2;
            once.jaccard_n += o.questions * (o.questions - 1) / 2;

            // Query-agnostic: the window is the document's last W tokens; as many document entries as
            // question 1's compression keeps (budget B minus question 1's tokens).
            const int W = std::min(first_cfg.window, D - 1);
            SnapKvConfig acfg = first_cfg;
            acfg.window = W;
            acfg.budget = std::max(W + 1, first_cfg.budget - static_cast<int>(qparts[0].size()));
            DocumentSession agn(backend);
            agn.prefill_document(std::span<const int32_t>(doc_ids.data(), static_cast<std::size_t>(D - W)));
            agn.set_question(std::span<const int32_t>(doc_ids.data() + (D - W), static_cast<std::size_t>(W)), W);
            const auto asel = agn.select(acfg);
            const int aheads = asel->compressed ? asel->cache_heads : backend.config().n_kv_heads;
            const DocKeep akeep = document_keep(*asel, D, n_layers, aheads);
            for (int i = 0; i < o.questions; ++i) {
                const int L = D + static_cast<int>(qparts[i].size());
                const SnapKvConfig cfg = budgets[b].config_for(o.snapkv, L);
                session.set_question(qparts[i], cfg.window);
                const auto sel = selection_from_keep(akeep, cfg, L, session.window_scores().window, asel->group);
                const std::string ans = answer_with(session, tokenizer, kind, *sel, o.max_new_tokens);
                record(agnostic, i == 0, answer_matches(ans, asked[i]), needle_recall(akeep, vpos[i]), cfg.budget);
            }
            agnostic.jaccard_sum += 1.0 * o.questions * (o.questions - 1) / 2;
            agnostic.jaccard_n += o.questions * (o.questions - 1) / 2;
        }
        if (progress) progress(d, report);
    }
    return report;
}

}  // namespace snapdoc::eval
