#include "app/remote/remote_messages.h"

#include "engine/tokenizer/chat_template.h"

namespace snapdoc::remote {

nlohmann::json question_messages(const std::string& system, const std::string* document,
                                 const std::vector<std::pair<std::string, std::string>>& history,
                                 const std::string& question) {
    nlohmann::json messages = nlohmann::json::array();
    if (document && !system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
    const auto user_text = [&](const std::string& q, bool first) {
        if (!document) return q;
        return first ? document_question_text(*document, q) : followup_question_text(q);
    };
    for (std::size_t i = 0; i < history.size(); ++i) {
        messages.push_back({{"role", "user"}, {"content", user_text(history[i].first, i == 0)}});
        messages.push_back({{"role", "assistant"}, {"content", history[i].second}});
    }
    messages.push_back({{"role", "user"}, {"content", user_text(question, history.empty())}});
    return messages;
}

}  // namespace snapdoc::remote
