// What the inspector, heatmaps, document shading and context bar show for the conversation on
// screen (issue 23): its last question's selection, when this session still holds the snapshot of
// that question's newest answer, and the question before it (question stability); else nothing,
// never another conversation's. Pure: messages and held snapshots in, pointers into them out.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ui/models/chat_model.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

struct ConversationSelection {
    const SelectionSnapshot* current = nullptr;   // the last question's (null: not held, or no question)
    const SelectionSnapshot* previous = nullptr;  // the question before it, when held
    // Prompt + generated tokens of the conversation's last answer (its stored statistics), 0: none.
    int context_tokens = 0;
};

ConversationSelection conversation_selection(const std::vector<ChatMessage>& messages,
                                             const std::map<int64_t, SelectionSnapshot>& held);

}  // namespace snapdoc::ui
