// Budget settings of an evaluation: "full" (no compression), "128" (B tokens per head per layer,
// window included) or "10%" (B = that fraction of each prompt's length).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/kv/snapkv_config.h"

namespace snapdoc::eval {

struct BudgetSetting {
    enum class Kind { Full, Tokens, Fraction };
    Kind kind = Kind::Full;
    int tokens = 0;
    double fraction = 0;

    std::string label() const;     // "full", "B=128", "10%"
    std::string file_tag() const;  // "full", "b128", "10pct"
    // The SnapKV settings for one prompt: `base` with this budget (at least window + 1).
    SnapKvConfig config_for(const SnapKvConfig& base, int prompt_len) const;
};

// "full,64,128,10%" -> settings; throws Error naming a bad item.
std::vector<BudgetSetting> parse_budgets(std::string_view text);

}  // namespace snapdoc::eval
