#include "ui/main/conversation_selection.h"

#include <nlohmann/json.hpp>

namespace snapdoc::ui {

namespace {

int tokens_of(const std::string& stats_json) {
    const auto j = nlohmann::json::parse(stats_json, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return 0;
    auto get = [&](const char* key) { return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : 0; };
    return get("prompt_tokens") + get("generated_tokens");
}

}  // namespace

ConversationSelection conversation_selection(const std::vector<ChatMessage>& messages,
                                             const std::map<int64_t, SelectionSnapshot>& held) {
    ConversationSelection out;
    // Per question (in order), the snapshot of its newest held answer; the last question's decides.
    std::vector<const SelectionSnapshot*> per_question;
    for (const ChatMessage& m : messages) {
        if (m.role == QLatin1String("user")) {
            per_question.push_back(nullptr);
            continue;
        }
        if (m.streaming || m.failed || per_question.empty()) continue;
        if (const int t = tokens_of(m.stats_json); t > 0) out.context_tokens = t;
        const auto it = held.find(m.id);
        if (m.id > 0 && it != held.end()) per_question.back() = &it->second;
    }
    if (per_question.empty()) return out;
    out.current = per_question.back();
    if (out.current && per_question.size() >= 2) out.previous = per_question[per_question.size() - 2];
    return out;
}

}  // namespace snapdoc::ui
