#include "app/server/openai_response.h"

#include <atomic>
#include <chrono>
#include <random>

namespace snapdoc::server {

using nlohmann::json;

namespace {

const char* object_name(Endpoint e, bool chunk) {
    if (e == Endpoint::Chat) return chunk ? "chat.completion.chunk" : "chat.completion";
    return "text_completion";
}

json base(const ResponseMeta& meta, bool chunk) {
    return {{"id", meta.id},
            {"object", object_name(meta.endpoint, chunk)},
            {"created", meta.created},
            {"model", meta.model},
            {"system_fingerprint", "snapdoc"}};
}

// Byte sequences cut inside a UTF-8 character cannot be JSON strings: the engine streams complete
// characters, and anything else is replaced rather than sent as invalid JSON.
std::string json_safe(const std::string& s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

ResponseMeta new_response_meta(Endpoint endpoint, std::string model) {
    static std::atomic<uint64_t> counter{0};
    static const uint64_t salt = std::random_device{}();
    ResponseMeta m;
    m.endpoint = endpoint;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s-%08llx%06llx", endpoint == Endpoint::Chat ? "chatcmpl" : "cmpl",
                  static_cast<unsigned long long>(salt & 0xffffffff),
                  static_cast<unsigned long long>(++counter));
    m.id = buf;
    m.created =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    m.model = std::move(model);
    return m;
}

json usage_json(const Outcome& o) {
    const double ratio =
        o.kept_entries > 0 ? static_cast<double>(o.full_entries) / static_cast<double>(o.kept_entries) : 1.0;
    return {{"prompt_tokens", o.prompt_tokens},
            {"completion_tokens", o.completion_tokens},
            {"total_tokens", o.prompt_tokens + o.completion_tokens},
            {"prompt_tokens_details", {{"cached_tokens", o.reused_tokens}}},
            {"snapkv",
             {{"reused_tokens", o.reused_tokens},
              {"document_tokens", o.document_tokens},
              {"compressed_tokens", o.compressed_tokens},
              {"kept_entries", o.kept_entries},
              {"full_entries", o.full_entries},
              {"compression_ratio", ratio},
              {"kv_bytes_full", o.kv_bytes_full},
              {"kv_bytes_compressed", o.kv_bytes_compressed},
              {"session", o.session},
              {"prompt_seconds", o.prompt_seconds}}}};
}

json completion_json(const ResponseMeta& meta, const std::string& text, const Outcome& o) {
    json j = base(meta, false);
    const json content = json::parse(json_safe(text));
    json choice = {{"index", 0}, {"finish_reason", o.finish_reason}, {"logprobs", nullptr}};
    if (meta.endpoint == Endpoint::Chat)
        choice["message"] = {{"role", "assistant"}, {"content", content}};
    else
        choice["text"] = content;
    j["choices"] = json::array({choice});
    j["usage"] = usage_json(o);
    j["citations"] = o.citations;
    return j;
}

json delta_chunk(const ResponseMeta& meta, const std::string& text, bool first) {
    json j = base(meta, true);
    const json content = json::parse(json_safe(text));
    json choice = {{"index", 0}, {"finish_reason", nullptr}, {"logprobs", nullptr}};
    if (meta.endpoint == Endpoint::Chat) {
        choice["delta"] = {{"content", content}};
        if (first) choice["delta"]["role"] = "assistant";
    } else {
        choice["text"] = content;
    }
    j["choices"] = json::array({choice});
    return j;
}

json progress_chunk(const ResponseMeta& meta, const json& prompt_progress) {
    json j = base(meta, true);
    json choice = {{"index", 0}, {"finish_reason", nullptr}, {"logprobs", nullptr}};
    if (meta.endpoint == Endpoint::Chat)
        choice["delta"] = json::object();
    else
        choice["text"] = "";
    j["choices"] = json::array({choice});
    j["prompt_progress"] = prompt_progress;
    return j;
}

json final_chunk(const ResponseMeta& meta, const Outcome& o) {
    json j = base(meta, true);
    json choice = {{"index", 0}, {"finish_reason", o.finish_reason}, {"logprobs", nullptr}};
    if (meta.endpoint == Endpoint::Chat)
        choice["delta"] = json::object();
    else
        choice["text"] = "";
    j["choices"] = json::array({choice});
    j["citations"] = o.citations;
    return j;
}

json usage_chunk(const ResponseMeta& meta, const Outcome& o) {
    json j = base(meta, true);
    j["choices"] = json::array();
    j["usage"] = usage_json(o);
    return j;
}

std::string sse_data(const json& j) {
    return "data: " + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace snapdoc::server
