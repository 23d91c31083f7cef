#include "app/services/conversation_export.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "engine/common/atomic_file.h"

namespace snapdoc::services {

namespace {

std::string iso_time(int64_t t) {
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

nlohmann::json parse_or_empty(const std::string& s) {
    auto j = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
    return j.is_discarded() ? nlohmann::json::object() : j;
}

// One line of the answer's statistics for the Markdown export, from whatever the stats JSON has.
std::string stats_line(const std::string& stats_json) {
    const auto j = parse_or_empty(stats_json);
    if (!j.is_object() || j.empty()) return "";
    std::string line;
    auto add = [&](const std::string& part) { line += (line.empty() ? "" : " · ") + part; };
    if (j.contains("prompt_tokens"))
        add(std::to_string(j["prompt_tokens"].get<int64_t>()) + " prompt tokens");
    if (j.contains("generated_tokens"))
        add(std::to_string(j["generated_tokens"].get<int64_t>()) + " generated");
    if (j.contains("decode_tokens_per_s")) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.1f tok/s", j["decode_tokens_per_s"].get<double>());
        add(buf);
    }
    if (j.contains("kept_fraction")) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "KV kept %.1f%%", 100.0 * j["kept_fraction"].get<double>());
        add(buf);
    }
    return line;
}

}  // namespace

std::string conversation_markdown(const ConversationExport& c) {
    std::string md =
        "# " + (c.document_title.empty() ? std::string("Conversation") : c.document_title) + "\n\n";
    if (!c.document_path.empty()) md += "- Document: `" + c.document_path + "`\n";
    if (!c.model.empty()) md += "- Model: `" + c.model + "`\n";
    md += "\n";
    for (const auto& m : c.messages) {
        md += (m.role == "user" ? "## Question\n\n" : "## Answer\n\n") + m.text + "\n\n";
        if (m.role == "assistant")
            if (const std::string s = stats_line(m.stats_json); !s.empty()) md += "*" + s + "*\n\n";
    }
    return md;
}

std::string conversation_json(const ConversationExport& c) {
    nlohmann::json j = {{"document", {{"title", c.document_title}, {"path", c.document_path}}},
                        {"model", c.model},
                        {"messages", nlohmann::json::array()}};
    for (const auto& m : c.messages)
        j["messages"].push_back({{"role", m.role},
                                 {"text", m.text},
                                 {"created_at", iso_time(m.created_at)},
                                 {"settings", parse_or_empty(m.settings_json)},
                                 {"stats", parse_or_empty(m.stats_json)}});
    return j.dump(2) + "\n";
}

void export_conversation(const ConversationExport& c, const std::filesystem::path& file) {
    const bool json = file.extension() == ".json";
    AtomicFileWriter out(file);
    out.write(json ? conversation_json(c) : conversation_markdown(c));
    out.commit();
}

}  // namespace snapdoc::services
