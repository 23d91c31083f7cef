#include "app/services/conversation_export.h"

#include <algorithm>
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

std::string answer_model(const ConversationExport& c, const MessageRecord& m) {
    return m.model.empty() ? c.model : m.model;
}

// The distinct answering models in the order they first answered.
std::vector<std::string> answer_models(const ConversationExport& c) {
    std::vector<std::string> out;
    for (const auto& m : c.messages)
        if (m.role == "assistant") {
            const std::string model = answer_model(c, m);
            if (!model.empty() && std::find(out.begin(), out.end(), model) == out.end()) out.push_back(model);
        }
    if (out.empty() && !c.model.empty()) out.push_back(c.model);
    return out;
}

nlohmann::json citations_of(const MessageRecord& m) {
    auto j = nlohmann::json::parse(m.citations_json, nullptr, /*allow_exceptions=*/false);
    return j.is_array() ? j : nlohmann::json::array();
}

std::string citation_line(const nlohmann::json& cit) {
    auto num = [&](const char* key) -> int64_t {
        return cit.contains(key) && cit[key].is_number() ? cit[key].get<int64_t>() : -1;
    };
    std::string excerpt = cit.contains("excerpt") && cit["excerpt"].is_string()
                              ? cit["excerpt"].get<std::string>()
                              : std::string();
    // A PDF's citations name their page (stored since issue 41; older ones have none).
    const int64_t page = num("page");
    std::string line = "“" + excerpt + "” (" + (page > 0 ? "page " + std::to_string(page) + ", " : std::string()) +
                       "tokens " + std::to_string(num("first_token")) + "–" + std::to_string(num("last_token"));
    if (cit.contains("weight") && cit["weight"].is_number()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, ", weight %.2f", cit["weight"].get<double>());
        line += buf;
    }
    // A weak citation (no passage stood out from the background attention) says so, as in the app.
    if (cit.contains("weak") && cit["weak"].is_boolean() && cit["weak"].get<bool>()) line += ", weak";
    return line + ")";
}

// The system prompt an answer was asked with: its stored settings name it (the conversation's own
// or the default as it was then); an answer stored without one falls back to the conversation's.
std::string system_prompt_of(const ConversationExport& c, const MessageRecord& m) {
    const auto settings = parse_or_empty(m.settings_json);
    if (settings.is_object() && settings.contains("system_prompt") && settings["system_prompt"].is_string())
        return settings["system_prompt"].get<std::string>();
    return c.system_prompt;
}

// Version k of n of each answer: the answers after one question are its regenerated versions, in
// the order they were made. {0, 0} for questions.
std::vector<std::pair<int, int>> answer_versions(const std::vector<MessageRecord>& messages) {
    std::vector<std::pair<int, int>> out(messages.size(), {0, 0});
    for (std::size_t i = 0; i < messages.size();) {
        if (messages[i].role != "assistant") {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < messages.size() && messages[end].role == "assistant") ++end;
        for (std::size_t k = i; k < end; ++k)
            out[k] = {static_cast<int>(k - i + 1), static_cast<int>(end - i)};
        i = end;
    }
    return out;
}

std::string quoted_prompt(const std::string& prompt) {
    return prompt.empty() ? std::string("none") : "“" + prompt + "”";
}

}  // namespace

std::string conversation_markdown(const ConversationExport& c) {
    std::string md =
        "# " + (c.document_title.empty() ? std::string("Conversation") : c.document_title) + "\n\n";
    if (!c.document_path.empty()) md += "- Document: `" + c.document_path + "`\n";
    const auto models = answer_models(c);
    for (std::size_t i = 0; i < models.size(); ++i)
        md += (i == 0 ? (models.size() > 1 ? "- Models: `" : "- Model: `") : std::string(", `")) + models[i] +
              "`" + (i + 1 == models.size() ? "\n" : "");
    // The system prompt each answer was asked with: one header line when every answer had the same,
    // else a line at each answer whose prompt differs from the answer before it.
    std::vector<std::string> prompts;
    for (const auto& m : c.messages)
        if (m.role == "assistant") prompts.push_back(system_prompt_of(c, m));
    const bool one_prompt =
        std::all_of(prompts.begin(), prompts.end(), [&](const std::string& p) { return p == prompts[0]; });
    if (prompts.empty()) {
        if (!c.system_prompt.empty()) md += "- System prompt: " + quoted_prompt(c.system_prompt) + "\n";
    } else if (one_prompt) {
        if (!prompts[0].empty()) md += "- System prompt: " + quoted_prompt(prompts[0]) + "\n";
    } else {
        md += "- System prompt: changed during the conversation (given at each answer asked with another)\n";
    }
    md += "\n";
    const auto versions = answer_versions(c.messages);
    std::size_t answer_index = 0;
    for (std::size_t i = 0; i < c.messages.size(); ++i) {
        const MessageRecord& m = c.messages[i];
        if (m.role != "assistant") {
            md += "## Question\n\n" + m.text + "\n\n";
            continue;
        }
        const auto [k, n] = versions[i];
        md += n > 1 ? "## Answer · version " + std::to_string(k) + " of " + std::to_string(n) + "\n\n"
                    : std::string("## Answer\n\n");
        md += m.text + "\n\n";
        std::string line = stats_line(m.stats_json);
        if (const std::string model = answer_model(c, m); !model.empty())
            line = "model `" + model + "`" + (line.empty() ? "" : " · " + line);
        if (!one_prompt && (answer_index == 0 || prompts[answer_index] != prompts[answer_index - 1]))
            line += (line.empty() ? "" : " · ") + std::string("system prompt: ") +
                    quoted_prompt(prompts[answer_index]);
        ++answer_index;
        if (!line.empty()) md += "*" + line + "*\n\n";
        const auto cits = citations_of(m);
        if (!cits.empty()) {
            md += "Sources:\n\n";
            int k = 1;
            for (const auto& cit : cits) md += std::to_string(k++) + ". " + citation_line(cit) + "\n";
            md += "\n";
        }
    }
    return md;
}

std::string conversation_json(const ConversationExport& c) {
    nlohmann::json j = {{"document", {{"title", c.document_title}, {"path", c.document_path}}},
                        {"models", answer_models(c)},
                        {"system_prompt", c.system_prompt},
                        {"messages", nlohmann::json::array()}};
    const auto versions = answer_versions(c.messages);
    for (std::size_t i = 0; i < c.messages.size(); ++i) {
        const MessageRecord& m = c.messages[i];
        nlohmann::json msg = {{"role", m.role},
                              {"text", m.text},
                              {"created_at", iso_time(m.created_at)},
                              {"settings", parse_or_empty(m.settings_json)},
                              {"stats", parse_or_empty(m.stats_json)}};
        if (m.role == "assistant") {
            msg["model"] = answer_model(c, m);
            msg["citations"] = citations_of(m);
            msg["system_prompt"] = system_prompt_of(c, m);
            msg["version"] = versions[i].first;  // k of "version k of n": regenerations of one question
            msg["versions"] = versions[i].second;
        }
        j["messages"].push_back(std::move(msg));
    }
    return j.dump(2) + "\n";
}

std::filesystem::path export_file_for(const std::filesystem::path& typed, ExportFormat format) {
    const std::string suffix = format == ExportFormat::Json ? ".json" : ".md";
    std::filesystem::path out = typed;
    if (format == ExportFormat::Markdown && (typed.extension() == ".md" || typed.extension() == ".markdown"))
        return out;
    if (typed.extension() == suffix) return out;
    out += suffix;
    return out;
}

void export_conversation(const ConversationExport& c, const std::filesystem::path& file,
                         ExportFormat format) {
    AtomicFileWriter out(file);
    out.write(format == ExportFormat::Json ? conversation_json(c) : conversation_markdown(c));
    out.commit();
}

void export_conversation(const ConversationExport& c, const std::filesystem::path& file) {
    export_conversation(c, file, file.extension() == ".json" ? ExportFormat::Json : ExportFormat::Markdown);
}

}  // namespace snapdoc::services
