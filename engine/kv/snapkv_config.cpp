#include "engine/kv/snapkv_config.h"

#include <string>

#include "engine/common/error.h"

namespace snapdoc {

void SnapKvConfig::validate() const {
    if (window < 1) throw Error("SnapKV window must be >= 1 (got " + std::to_string(window) + ")");
    if (budget <= window)
        throw Error("SnapKV budget (" + std::to_string(budget) + ") must be larger than the window (" +
                    std::to_string(window) + ")");
    if (kernel < 1 || kernel % 2 == 0)
        throw Error("SnapKV pooling kernel must be a positive odd number (got " + std::to_string(kernel) + ")");
    if (!(pyramid_beta >= 1.0f)) throw Error("PyramidKV beta must be >= 1");
    if (!(adaptive_floor >= 0.0f && adaptive_floor <= 1.0f)) throw Error("AdaKV floor alpha must be in [0, 1]");
}

std::string_view pooling_name(Pooling p) { return p == Pooling::Max ? "max" : "avg"; }
std::string_view gqa_mode_name(GqaMode g) { return g == GqaMode::KvHead ? "kv-head" : "query-head"; }
std::string_view budget_policy_name(BudgetPolicy p) {
    switch (p) {
        case BudgetPolicy::Uniform: return "uniform";
        case BudgetPolicy::Pyramid: return "pyramid";
        case BudgetPolicy::Adaptive: return "adaptive";
    }
    return "?";
}

Pooling parse_pooling(std::string_view s) {
    if (s == "max") return Pooling::Max;
    if (s == "avg") return Pooling::Avg;
    throw Error("unknown pooling '" + std::string(s) + "' (max, avg)");
}
GqaMode parse_gqa_mode(std::string_view s) {
    if (s == "kv-head") return GqaMode::KvHead;
    if (s == "query-head") return GqaMode::QueryHead;
    throw Error("unknown GQA mode '" + std::string(s) + "' (kv-head, query-head)");
}
BudgetPolicy parse_budget_policy(std::string_view s) {
    if (s == "uniform") return BudgetPolicy::Uniform;
    if (s == "pyramid") return BudgetPolicy::Pyramid;
    if (s == "adaptive") return BudgetPolicy::Adaptive;
    throw Error("unknown budget policy '" + std::string(s) + "' (uniform, pyramid, adaptive)");
}

}  // namespace snapdoc
