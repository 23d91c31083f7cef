#include "engine/session/context_check.h"

#include <limits>

#include "engine/common/error.h"

namespace snapdoc {

ContextRoom context_room(int64_t prompt_tokens, int64_t new_tokens, int context_length, const std::string& what,
                         bool ignore_context) {
    if (new_tokens < 0)
        throw Error("the number of tokens to generate (-n) must be >= 0, not " + std::to_string(new_tokens));
    if (new_tokens > kMaxNewTokens)
        throw Error("-n " + std::to_string(new_tokens) + " is more than the " +
                    std::to_string(kMaxNewTokens) + " tokens a run may generate");
    ContextRoom room;
    room.prompt_tokens = prompt_tokens;
    room.new_tokens = new_tokens;
    room.total = prompt_tokens + new_tokens;
    room.context_length = context_length;
    checked_token_count(room.total, what);
    room.fits = ignore_context || context_length <= 0 || room.total <= context_length;
    return room;
}

void check_context_room(int64_t prompt_tokens, int64_t new_tokens, int context_length,
                        const std::string& what, bool ignore_context) {
    const ContextRoom room = context_room(prompt_tokens, new_tokens, context_length, what, ignore_context);
    if (room.fits) return;
    const int64_t total = room.total;
    throw Error(what + ": " + std::to_string(prompt_tokens) + " + " + std::to_string(new_tokens) + " = " +
                std::to_string(total) + " tokens, but the model's context is " +
                std::to_string(context_length) + " (use a shorter input or -n, or --ignore-context)");
}

int checked_token_count(int64_t n, const std::string& what) {
    // Half of INT_MAX: capacities get a window and a margin added later, still in int.
    constexpr int64_t kLimit = std::numeric_limits<int>::max() / 2;
    if (n < 0 || n > kLimit)
        throw Error(what + ": " + std::to_string(n) + " tokens is outside the supported range [0, " +
                    std::to_string(kLimit) + "]");
    return static_cast<int>(n);
}

}  // namespace snapdoc
