#include "app/eval/budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/common/trim.h"

namespace snapdoc::eval {
namespace {

std::string percent_text(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", fraction * 100);
    return buf;
}

}  // namespace

std::string BudgetSetting::label() const {
    switch (kind) {
        case Kind::Full: return "full";
        case Kind::Tokens: return "B=" + std::to_string(tokens);
        case Kind::Fraction: return percent_text(fraction) + "%";
    }
    return "?";
}

std::string BudgetSetting::file_tag() const {
    switch (kind) {
        case Kind::Full: return "full";
        case Kind::Tokens: return "b" + std::to_string(tokens);
        case Kind::Fraction: {
            std::string p = percent_text(fraction);
            std::replace(p.begin(), p.end(), '.', 'p');
            return p + "pct";
        }
    }
    return "x";
}

SnapKvConfig BudgetSetting::config_for(const SnapKvConfig& base, int prompt_len) const {
    SnapKvConfig c = base;
    switch (kind) {
        case Kind::Full: c.enabled = false; break;
        case Kind::Tokens:
            c.enabled = true;
            c.budget = std::max(tokens, c.window + 1);
            break;
        case Kind::Fraction:
            c.enabled = true;
            c.budget = std::max(static_cast<int>(std::lround(fraction * prompt_len)), c.window + 1);
            break;
    }
    c.validate();
    return c;
}

std::vector<BudgetSetting> parse_budgets(std::string_view text) {
    std::vector<BudgetSetting> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item(trim_whitespace(text.substr(pos, comma - pos)));
        pos = comma + 1;
        if (item.empty()) continue;
        BudgetSetting b;
        try {
            if (item == "full") {
                b.kind = BudgetSetting::Kind::Full;
            } else if (item.back() == '%') {
                std::size_t used = 0;
                const double p = std::stod(item.substr(0, item.size() - 1), &used);
                if (used != item.size() - 1 || !(p > 0 && p <= 100)) throw std::invalid_argument(item);
                b.kind = BudgetSetting::Kind::Fraction;
                b.fraction = p / 100.0;
            } else {
                std::size_t used = 0;
                const int n = std::stoi(item, &used);
                if (used != item.size() || n < 2) throw std::invalid_argument(item);
                b.kind = BudgetSetting::Kind::Tokens;
                b.tokens = n;
            }
        } catch (const std::logic_error&) {
            throw Error("bad budget '" + item + "': use full, a token count (e.g. 128) or a percentage (e.g. 10%)");
        }
        out.push_back(b);
    }
    if (out.empty()) throw Error("no budgets given (e.g. --budgets full,64,128,10%)");
    return out;
}

}  // namespace snapdoc::eval
