// Needle-in-a-haystack evaluation: for each context length × needle depth, `trials` generated
// documents (app/eval/haystack.h) each asked the needle's question under every budget setting
// (full KV and SnapKV budgets); exact-match accuracy and whether the needle's tokens survived
// compression, per cell.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/eval/budget.h"
#include "app/eval/csv.h"
#include "engine/kv/snapkv_config.h"
#include "engine/runtime/backend.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::eval {

struct NiahOptions {
    std::vector<int> lengths{512, 1024};           // target document tokens
    std::vector<double> depths{0.0, 0.25, 0.5, 0.75, 1.0};  // fractions in [0, 1]
    int trials = 4;                                // documents per (length, depth)
    std::vector<BudgetSetting> budgets;            // settings compared on every document
    SnapKvConfig snapkv;                           // window, kernel, pooling, ... (budget from `budgets`)
    uint64_t seed = 1;
    int facts_per_1k = 10;                         // needle + distractors per 1000 tokens
    int max_new_tokens = 24;
    std::string docs_out;                          // non-empty: write each generated document here
                                                   // (niah-L<length>-d<depth%>-t<trial>.txt + .questions.tsv)
};

struct NiahTrialResult {
    int length_index = 0, depth_index = 0, trial = 0;
    int prompt_tokens = 0;
    std::string question, expected;
    std::vector<std::string> answers;     // per budget setting
    std::vector<int> budgets;             // B in effect per setting (0 = full)
    std::vector<bool> correct;
    std::vector<double> needle_recall;    // per setting: fraction of (layer, head) keeping the value
};

struct NiahCell {
    int trials = 0, correct = 0;
    double prompt_tokens_sum = 0, budget_sum = 0, recall_sum = 0;
    int recall_n = 0;
    double accuracy() const { return trials ? static_cast<double>(correct) / trials : 0.0; }
};

struct NiahReport {
    NiahOptions options;
    std::vector<NiahTrialResult> trials;
    // cells[setting][length][depth]
    std::vector<std::vector<std::vector<NiahCell>>> cells;

    const NiahCell& cell(std::size_t s, std::size_t l, std::size_t d) const { return cells[s][l][d]; }
    // Accuracy of setting s over all trials (and of one length when length_index >= 0).
    double accuracy(std::size_t s, int length_index = -1) const;
    CsvTable csv() const;          // one row per setting × length × depth
    CsvTable trials_csv() const;   // one row per trial × setting
};

using NiahProgress = std::function<void(const NiahTrialResult&)>;

NiahReport run_niah(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind, const NiahOptions& options,
                    const NiahProgress& progress = {});

// The file name --docs-out gives one trial's document: "niah-L16384-d50-t0.txt".
std::string niah_document_name(int length, double depth, int trial);

// The document positions of `value` as the model's tokenizer writes it in "... is 7391." (searched
// in `document_ids`; empty if not found): the value's tokens, or the one piece "is 7391" where the
// vocabulary has it (the demo model's).
std::vector<int32_t> value_positions(const Tokenizer& tokenizer, const std::vector<int32_t>& document_ids,
                                     const std::string& value);

}  // namespace snapdoc::eval
