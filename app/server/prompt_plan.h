// Where a prompt's document part ends. A fresh prompt is split so that the usual client flows
// reuse the document part next time:
//  - the same conversation continued ([sys, user(doc + Q1)] then [..., assistant(A1), user(Q2)]):
//    the first prompt's document part is a prefix of the second;
//  - a script resending [sys, user(doc + Qk)] with another question each time: the document part
//    ends at the last paragraph break of the last user message, before the question.
// A prompt that starts with a held session's document part is served by that session when what
// follows is short enough to run through the layers at once (max_tail_tokens) and the document part
// is a real share of the prompt (at least min(n / 2, --snapkv-min-tokens) tokens: a few tokens of
// template opening shared by every chat are not a document); else it gets a session of its own
// (from the on-disk K/V cache when one of its candidate document parts is there).
#pragma once

#include <vector>

#include "engine/tokenizer/chat_template.h"

namespace snapdoc::server {

struct SplitCandidates {
    // Document-part ends, best first: the last user message's paragraph split, its turn start,
    // then earlier user messages' splits and turn starts (used when the K/V cache has one of them).
    std::vector<int> ends;
};

// Candidates for a chat prompt; every one is in [1, ids.size() - 1] and leaves at most
// `max_tail_tokens` after it (the first is moved forward when it would leave more).
SplitCandidates split_candidates(const MessagePrompt& prompt, int max_tail_tokens);

// Prompt position from which the recent turns are kept whole by SnapKV (the oldest turn start
// after `document_end` whose distance to the last user turn fits `keep_tokens`), or -1.
int history_keep_from(const MessagePrompt& prompt, int document_end, int keep_tokens);

}  // namespace snapdoc::server
