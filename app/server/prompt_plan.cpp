#include "app/server/prompt_plan.h"

#include <algorithm>

namespace snapdoc::server {

SplitCandidates split_candidates(const MessagePrompt& prompt, int max_tail_tokens) {
    SplitCandidates c;
    const int n = static_cast<int>(prompt.ids.size());
    if (n < 2) return c;
    const auto add = [&](int end) {
        if (end >= 1 && end <= n - 1 && std::find(c.ends.begin(), c.ends.end(), end) == c.ends.end())
            c.ends.push_back(end);
    };
    const int floor = std::max(1, n - std::max(1, max_tail_tokens));
    for (int i = static_cast<int>(prompt.turn_starts.size()) - 1; i >= 0; --i) {
        const int split = prompt.paragraph_splits[i];
        const int start = prompt.turn_starts[i];
        if (split >= floor) add(split);
        if (start >= floor) add(start);
    }
    // Nothing close enough to the end (one long message): cut at the tail budget.
    if (c.ends.empty() || c.ends.front() < floor) c.ends.insert(c.ends.begin(), std::clamp(floor, 1, n - 1));
    return c;
}

int history_keep_from(const MessagePrompt& prompt, int document_end, int keep_tokens) {
    if (keep_tokens < 0) return document_end;
    // The last user message's turn start: recent history is what lies between keep and it.
    int last_user = static_cast<int>(prompt.ids.size());
    for (int i = static_cast<int>(prompt.turn_starts.size()) - 1; i >= 0; --i)
        if (prompt.turn_starts[i] >= 0) {
            last_user = prompt.turn_starts[i];
            break;
        }
    int keep = -1;
    for (std::size_t i = 0; i < prompt.turn_starts.size(); ++i) {
        const int start = prompt.turn_starts[i];
        if (start < document_end || start >= last_user) continue;
        if (last_user - start <= keep_tokens) {
            keep = start;
            break;
        }
    }
    return keep;
}

}  // namespace snapdoc::server
