// The context a document chat runs with when the user gave none (BackendOptions::context_length).
// Only LongRoPE depends on it: its short factors hold up to original_context, its long ones above,
// for every position (llama.cpp picks by n_ctx, Hugging Face by the sequence length). Running a
// 1K-token chat at the declared 128K context used the long factors for it (logits up to 10 off
// llama.cpp's at n_ctx 2048). The rule: a LongRoPE model whose chat fits original_context runs with
// context original_context (short factors); a longer chat, and every other model, runs with the
// model's own context (0). `needed_tokens` is the caller's upper bound (snapdoc-cli ask: document +
// longest question + -n; for a conversation every question, every answer at -n and 64 template
// tokens per turn), so a chat run at original_context stays within it and the factors never have
// to change mid-chat (which would invalidate the stored K/V).
#pragma once

#include <cstdint>

#include "engine/model/rope_scaling.h"

namespace snapdoc {

int document_run_context(const RopeScaling& scaling, int64_t needed_tokens);

}  // namespace snapdoc
