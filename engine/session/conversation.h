// Multi-turn conversations about one document. A conversation is the document plus its earlier
// turns; DocumentChat::ask lays out document + turns + new question with the model's chat template
// and answers by re-snapping over all of it. The session keeps the K/V of the tokens after the
// document (earlier turns, last question, last answer) so that the next ask runs only the tokens
// from the first one that differs (longest common prefix by token ids).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/chat_template.h"

namespace snapdoc {

class Tokenizer;

// One earlier turn of a conversation, as the user asked it and as the model answered it.
struct ChatTurn {
    std::string question;
    std::string answer;
};

// The tokens that follow the document part for `history` + `question` (chat_template.h,
// build_conversation_part): with an empty history exactly build_question_part(question).
// Throws Error for an empty question (new or earlier).
ConversationPart conversation_part(ChatTemplateKind kind, const Tokenizer& tok, std::span<const ChatTurn> history,
                                   std::string_view question);

// Where the history kept whole begins (an index into part.ids): the start of the oldest of the most
// recent turns that together fit `keep_tokens` (the new question's part is never counted). Turns
// before it are compressed with the document by SnapKV. keep_tokens < 0: every turn kept whole.
int history_keep_start(const ConversationPart& part, int keep_tokens);

}  // namespace snapdoc
