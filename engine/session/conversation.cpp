#include "engine/session/conversation.h"

namespace snapdoc {

ConversationPart conversation_part(ChatTemplateKind kind, const Tokenizer& tok, std::span<const ChatTurn> history,
                                   std::string_view question) {
    std::vector<TemplateTurn> turns;
    turns.reserve(history.size());
    for (const ChatTurn& t : history) turns.push_back({t.question, t.answer});
    return build_conversation_part(kind, tok, turns, question);
}

int history_keep_start(const ConversationPart& part, int keep_tokens) {
    if (part.turn_starts.empty()) return part.question_start;
    if (keep_tokens < 0) return part.turn_starts.front();
    // Walk back from the newest turn while the turns from there to the question still fit.
    int start = part.question_start;
    for (auto it = part.turn_starts.rbegin(); it != part.turn_starts.rend(); ++it) {
        if (part.question_start - *it > keep_tokens) break;
        start = *it;
    }
    return start;
}

}  // namespace snapdoc
