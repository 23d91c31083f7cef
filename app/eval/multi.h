// Multi-question evaluation: several questions about different facts of one document, answered
//   full      with the full KV cache (the reference),
//   resnap    re-selecting for every question over the stored full document KV (snapdoc's way),
//   once      with the one compression chosen for the first question, reused for the others,
//   agnostic  with a compression chosen before any question: the observation window is the last
//             W document tokens (the question is left out of it),
// with the same budget for the compressed ones, plus how much the kept sets of different
// questions overlap and how often the asked fact's value survived compression.
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

struct MultiOptions {
    int length = 1024;        // target document tokens
    int questions = 4;        // questions per document (about different facts, spread over depths)
    int documents = 25;       // documents
    int facts_per_1k = 10;    // facts per 1000 tokens (at least `questions`)
    std::vector<BudgetSetting> budgets;  // compressed settings (full is always run)
    SnapKvConfig snapkv;
    uint64_t seed = 1;
    int max_new_tokens = 24;
};

enum class MultiStrategy { Full, Resnap, Once, Agnostic };
std::string_view multi_strategy_name(MultiStrategy s);

struct MultiRow {
    std::string budget;       // setting label ("full" for the reference)
    MultiStrategy strategy = MultiStrategy::Full;
    int questions = 0, correct = 0;
    double recall_sum = 0;
    int recall_n = 0;
    double jaccard_sum = 0;   // kept-set overlap between questions of one document (pairs)
    int jaccard_n = 0;
    double budget_sum = 0;
    int later_questions = 0, later_correct = 0;  // questions after the first of each document
    double accuracy() const { return questions ? static_cast<double>(correct) / questions : 0.0; }
    double later_accuracy() const {
        return later_questions ? static_cast<double>(later_correct) / later_questions : 0.0;
    }
};

struct MultiReport {
    MultiOptions options;
    std::vector<MultiRow> rows;   // full first, then per budget: resnap, once, agnostic
    CsvTable csv() const;
};

using MultiProgress = std::function<void(int document, const MultiReport& so_far)>;

MultiReport run_multi(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind, const MultiOptions& options,
                      const MultiProgress& progress = {});

}  // namespace snapdoc::eval
