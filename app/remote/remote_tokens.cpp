#include "app/remote/remote_tokens.h"

#include "app/remote/remote_http.h"
#include "engine/common/error.h"

namespace snapdoc::remote {

namespace {

using json = nlohmann::json;

// The messages' text and how many there are.
int64_t text_bytes(const json& messages, std::string* joined) {
    int64_t bytes = 0;
    for (const json& m : messages) {
        const std::string& t = m.at("content").get_ref<const std::string&>();
        bytes += static_cast<int64_t>(t.size());
        if (joined) {
            if (!joined->empty()) *joined += "\n";
            *joined += t;
        }
    }
    return bytes;
}

bool try_server_count(const RemoteEndpoint& ep, EngineKind kind, const std::string& model, const json& messages,
                      TokenCount& out) {
    try {
        if (kind == EngineKind::Vllm) {
            const HttpReply r = http_post_json(ep, ep.at("/tokenize"),
                                               {{"model", model}, {"messages", messages}, {"add_generation_prompt", true}},
                                               false);
            const json j = r.ok() ? json::parse(r.body, nullptr, false) : json();
            if (j.is_object() && j.contains("count") && j["count"].is_number_integer()) {
                out = {j["count"].get<int64_t>(), true, "vLLM /tokenize (with its chat template)"};
                return true;
            }
            return false;
        }
        if (kind == EngineKind::LlamaServer || kind == EngineKind::SnapdocServer) {
            std::string text;
            text_bytes(messages, &text);
            const HttpReply r = http_post_json(ep, ep.at("/tokenize"), {{"content", text}}, false);
            const json j = r.ok() ? json::parse(r.body, nullptr, false) : json();
            if (j.is_object() && j.contains("tokens") && j["tokens"].is_array()) {
                const int64_t n = static_cast<int64_t>(j["tokens"].size()) +
                                  kTemplateTokensPerMessage * static_cast<int64_t>(messages.size());
                out = {n, true, std::string(engine_name(kind)) + " /tokenize"};
                return true;
            }
            return false;
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const Error&) {
        // A server that does not count (or refuses this text) leaves the estimate.
    }
    return false;
}

}  // namespace

TokenCount count_prompt_tokens(const RemoteEndpoint& ep, EngineKind kind, const std::string& model,
                               const json& messages) {
    TokenCount out;
    if (try_server_count(ep, kind, model, messages, out)) return out;
    const int64_t bytes = text_bytes(messages, nullptr);
    out.tokens = (bytes + kBytesPerTokenEstimate - 1) / kBytesPerTokenEstimate +
                 kTemplateTokensPerMessage * static_cast<int64_t>(messages.size());
    out.exact = false;
    out.how = "estimated at " + std::to_string(kBytesPerTokenEstimate) + " bytes per token";
    return out;
}

}  // namespace snapdoc::remote
