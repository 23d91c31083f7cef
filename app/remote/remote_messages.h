// The chat messages of a question to a remote engine, laid out as a local ask lays its prompt out
// (chat_template.h: document_question_text, followup_question_text), for snapdoc-cli ask --remote
// and the app alike.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace snapdoc::remote {

// The turns so far (question, answer) and the new question. With `document` (the engine gets the
// document in the prompt) the system prompt leads and the first user message carries the document;
// without it (a snapdoc-server's document session, which lays its document out itself) only the
// turns and the question go.
nlohmann::json question_messages(const std::string& system, const std::string* document,
                                 const std::vector<std::pair<std::string, std::string>>& history,
                                 const std::string& question);

}  // namespace snapdoc::remote
