// The one up-front context check: every command and the app call it after tokenizing and before
// any prefill, so an input that cannot fit is refused in milliseconds rather than after minutes
// of prefill (issue 14). The sums are 64-bit: -n near 2^31 must not wrap past the check.
#pragma once

#include <cstdint>
#include <string>

namespace snapdoc {

// The most new tokens a run may ask for (-n): far beyond any context, far below int overflow.
inline constexpr int64_t kMaxNewTokens = int64_t{1} << 24;

// The numbers behind the check, for a caller that words the refusal itself (the app: token counts
// with separators, a Settings hint instead of a flag). Same bounds, same arithmetic as
// check_context_room; throws Error only for the hard bounds (-n out of range, totals past int).
struct ContextRoom {
    int64_t prompt_tokens = 0;
    int64_t new_tokens = 0;
    int64_t total = 0;
    int context_length = 0;
    bool fits = true;  // total <= context_length, or the context is unknown (0) or ignored
};
ContextRoom context_room(int64_t prompt_tokens, int64_t new_tokens, int context_length, const std::string& what,
                         bool ignore_context = false);

// Throws Error when `prompt_tokens + new_tokens` exceeds `context_length` (0 = unknown: only the
// overflow-safe bounds are checked). `what` names the input ("document + question + answer").
// With `ignore_context` only the hard bounds apply (positions past the context still work, with
// RoPE extrapolated; the KV cache just has to be addressable).
void check_context_room(int64_t prompt_tokens, int64_t new_tokens, int context_length,
                        const std::string& what, bool ignore_context = false);

// A token count that must fit an int (cache capacities, positions); throws Error naming `what`.
int checked_token_count(int64_t n, const std::string& what);

}  // namespace snapdoc
