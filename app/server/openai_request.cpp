#include "app/server/openai_request.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/server/api_error.h"
#include "engine/common/error.h"
#include "engine/common/json_input.h"

namespace snapdoc::server {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;
constexpr uint64_t kMaxValues = uint64_t{4} << 20;
constexpr std::size_t kMaxStopStrings = 16;
constexpr std::size_t kMaxStopLength = 256;
constexpr std::size_t kMaxMessages = 100000;
constexpr std::size_t kMaxDocumentIds = 16;

const char* type_name(const json& v) {
    switch (v.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::string:
            return "a string";
        case json::value_t::array:
            return "an array";
        case json::value_t::object:
            return "an object";
        default:
            return "a number";
    }
}

ApiError wrong_type(const std::string& field, const char* wanted, const json& v) {
    return bad_request("'" + field + "' must be " + wanted + " (got " + type_name(v) + ")", field);
}

// The value of `key` unless absent or null.
const json* field(const json& obj, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
}

std::optional<bool> get_bool(const json& obj, const char* key, const std::string& path) {
    const json* v = field(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) throw wrong_type(path, "a boolean", *v);
    return v->get<bool>();
}

std::optional<int64_t> get_int(const json& obj, const char* key, const std::string& path, int64_t lo,
                               int64_t hi) {
    const json* v = field(obj, key);
    if (!v) return std::nullopt;
    int64_t n = 0;
    if (v->is_number_integer()) {
        if (v->is_number_unsigned() &&
            v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw bad_request("'" + path + "' is out of range", path);
        n = v->get<int64_t>();
    } else if (v->is_number_float() && std::isfinite(v->get<double>()) &&
               v->get<double>() == std::floor(v->get<double>()) && std::fabs(v->get<double>()) < 9e15) {
        n = static_cast<int64_t>(v->get<double>());
    } else {
        throw wrong_type(path, "an integer", *v);
    }
    if (n < lo || n > hi)
        throw bad_request("'" + path + "' is " + std::to_string(n) + ", outside [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + "]",
                          path);
    return n;
}

std::optional<float> get_number(const json& obj, const char* key, const std::string& path, double lo,
                                double hi) {
    const json* v = field(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_number()) throw wrong_type(path, "a number", *v);
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
        throw bad_request("'" + path + "' must be in [" + json(lo).dump() + ", " + json(hi).dump() + "]",
                          path);
    return static_cast<float>(d);
}

std::optional<std::string> get_string(const json& obj, const char* key, const std::string& path) {
    const json* v = field(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) throw wrong_type(path, "a string", *v);
    return v->get<std::string>();
}

SnapKvOverrides parse_snapkv(const json& obj) {
    SnapKvOverrides o;
    const json* s = field(obj, "snapkv");
    if (!s) return o;
    if (!s->is_object()) throw wrong_type("snapkv", "an object", *s);
    o.enabled = get_bool(*s, "enabled", "snapkv.enabled");
    if (auto v = get_int(*s, "budget", "snapkv.budget", 2, 1 << 24)) o.budget = static_cast<int>(*v);
    if (auto v = get_int(*s, "window", "snapkv.window", 1, 1 << 20)) o.window = static_cast<int>(*v);
    if (auto v = get_int(*s, "kernel", "snapkv.kernel", 1, 1023)) o.kernel = static_cast<int>(*v);
    o.pool = get_string(*s, "pool", "snapkv.pool");
    o.policy = get_string(*s, "policy", "snapkv.policy");
    o.gqa = get_string(*s, "gqa", "snapkv.gqa");
    for (const auto& [key, value] : s->items())
        if (key != "enabled" && key != "budget" && key != "window" && key != "kernel" && key != "pool" &&
            key != "policy" && key != "gqa")
            throw bad_request("unknown field 'snapkv." + key +
                                  "' (known: enabled, budget, window, kernel, pool, policy, gqa)",
                              "snapkv." + key);
    return o;
}

GenerationFields parse_generation(const json& obj) {
    GenerationFields g;
    if (auto m = get_string(obj, "model", "model")) g.model = *m;
    if (auto v = get_int(obj, "max_tokens", "max_tokens", 0, 16777216)) g.max_tokens = static_cast<int>(*v);
    if (auto v = get_int(obj, "max_completion_tokens", "max_completion_tokens", 0, 16777216))
        g.max_tokens = static_cast<int>(*v);
    g.temperature = get_number(obj, "temperature", "temperature", 0.0, 2.0);
    if (const json* tp = field(obj, "top_p")) {
        g.top_p = get_number(obj, "top_p", "top_p", 0.0, 1.0);
        if (*g.top_p <= 0.0f) throw bad_request("'top_p' must be in (0, 1]", "top_p");
        (void)tp;
    }
    if (auto v = get_int(obj, "top_k", "top_k", 0, 1 << 30)) g.top_k = static_cast<int>(*v);
    if (const json* seed = field(obj, "seed")) {
        if (!seed->is_number_integer()) throw wrong_type("seed", "an integer", *seed);
        g.seed =
            seed->is_number_unsigned() ? seed->get<uint64_t>() : static_cast<uint64_t>(seed->get<int64_t>());
    }
    if (auto n =
            get_int(obj, "n", "n", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        n && *n != 1)
        throw bad_request("'n' must be 1: this server generates one choice per request", "n",
                          "unsupported_value");
    if (const json* stop = field(obj, "stop")) {
        if (stop->is_string()) {
            g.stop.push_back(stop->get<std::string>());
        } else if (stop->is_array()) {
            if (stop->size() > kMaxStopStrings)
                throw bad_request("'stop' has " + std::to_string(stop->size()) + " strings; at most " +
                                      std::to_string(kMaxStopStrings),
                                  "stop");
            for (std::size_t i = 0; i < stop->size(); ++i) {
                if (!(*stop)[i].is_string())
                    throw wrong_type("stop[" + std::to_string(i) + "]", "a string", (*stop)[i]);
                g.stop.push_back((*stop)[i].get<std::string>());
            }
        } else {
            throw wrong_type("stop", "a string or an array of strings", *stop);
        }
        for (const std::string& s : g.stop) {
            if (s.empty()) throw bad_request("'stop' strings must not be empty", "stop");
            if (s.size() > kMaxStopLength)
                throw bad_request(
                    "'stop' strings are limited to " + std::to_string(kMaxStopLength) + " bytes", "stop");
        }
    }
    g.stream = get_bool(obj, "stream", "stream").value_or(false);
    g.ignore_eos = get_bool(obj, "ignore_eos", "ignore_eos").value_or(false);
    g.return_progress = get_bool(obj, "return_progress", "return_progress").value_or(false);
    if (const json* so = field(obj, "stream_options")) {
        if (!so->is_object()) throw wrong_type("stream_options", "an object", *so);
        g.include_usage = get_bool(*so, "include_usage", "stream_options.include_usage").value_or(false);
    }
    g.snapkv = parse_snapkv(obj);
    return g;
}

// "content": a string, or an array of parts of which only {"type": "text"} are understood.
std::string message_content(const json& m, const std::string& path, bool allow_null) {
    const auto it = m.find("content");
    if (it == m.end() || it->is_null()) {
        if (allow_null) return {};
        throw bad_request("'" + path + ".content' is required", path + ".content");
    }
    if (it->is_string()) return it->get<std::string>();
    if (!it->is_array()) throw wrong_type(path + ".content", "a string or an array of content parts", *it);
    std::string text;
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& part = (*it)[i];
        const std::string ppath = path + ".content[" + std::to_string(i) + "]";
        if (!part.is_object()) throw wrong_type(ppath, "an object", part);
        const auto type = get_string(part, "type", ppath + ".type");
        if (!type) throw bad_request("'" + ppath + ".type' is required", ppath + ".type");
        if (*type != "text")
            throw bad_request("'" + ppath + ".type' is '" + *type + "': only text parts are supported",
                              ppath + ".type");
        const auto t = get_string(part, "text", ppath + ".text");
        if (!t) throw bad_request("'" + ppath + ".text' is required", ppath + ".text");
        if (!text.empty()) text += "\n";
        text += *t;
    }
    return text;
}

}  // namespace

nlohmann::json parse_body(const std::string& body) {
    // The engine's bounded parser: depth and value count are checked before nlohmann builds
    // anything (a million nested brackets or a body of "0," items cannot exhaust stack or RAM).
    JsonLimits limits;
    limits.max_depth = kMaxDepth;
    limits.max_values = kMaxValues;
    json j;
    try {
        j = parse_json_input(body, "the request body is ", limits);
    } catch (const Error& e) {
        throw bad_request(e.what(), {}, "invalid_json");
    }
    if (!j.is_object()) throw bad_request("the request body must be a JSON object");
    return j;
}

ChatRequest parse_chat_request(const json& body) {
    ChatRequest r;
    r.gen = parse_generation(body);
    if (auto id = get_string(body, "document_id", "document_id")) r.document_id = *id;
    if (const json* ids = field(body, "document_ids")) {
        if (!r.document_id.empty())
            throw bad_request("give either 'document_id' or 'document_ids', not both", "document_ids");
        if (!ids->is_array()) throw wrong_type("document_ids", "an array of strings", *ids);
        if (ids->empty()) throw bad_request("'document_ids' must not be empty", "document_ids");
        if (ids->size() > kMaxDocumentIds)
            throw bad_request("'document_ids' holds at most " + std::to_string(kMaxDocumentIds) + " documents",
                              "document_ids");
        for (std::size_t i = 0; i < ids->size(); ++i) {
            const std::string path = "document_ids[" + std::to_string(i) + "]";
            if (!(*ids)[i].is_string()) throw wrong_type(path, "a string", (*ids)[i]);
            const std::string id = (*ids)[i].get<std::string>();
            if (std::find(r.document_ids.begin(), r.document_ids.end(), id) != r.document_ids.end())
                throw bad_request("'" + path + "': document '" + id + "' is listed twice", "document_ids");
            r.document_ids.push_back(id);
        }
        // One id is the one-document chat of "document_id", laid out exactly as it is.
        if (r.document_ids.size() == 1) {
            r.document_id = r.document_ids[0];
            r.document_ids.clear();
        }
    }
    const json* msgs = field(body, "messages");
    if (!msgs) throw bad_request("'messages' is required", "messages");
    if (!msgs->is_array()) throw wrong_type("messages", "an array", *msgs);
    if (msgs->empty()) throw bad_request("'messages' must not be empty", "messages");
    if (msgs->size() > kMaxMessages) throw bad_request("'messages' has too many entries", "messages");
    for (std::size_t i = 0; i < msgs->size(); ++i) {
        const json& m = (*msgs)[i];
        const std::string path = "messages[" + std::to_string(i) + "]";
        if (!m.is_object()) throw wrong_type(path, "an object", m);
        const auto role = get_string(m, "role", path + ".role");
        if (!role) throw bad_request("'" + path + ".role' is required", path + ".role");
        ChatMessage cm;
        if (*role == "system" || *role == "developer")
            cm.role = MessageRole::System;
        else if (*role == "user")
            cm.role = MessageRole::User;
        else if (*role == "assistant")
            cm.role = MessageRole::Assistant;
        else
            throw bad_request("'" + path + ".role' is '" + *role +
                                  "': supported roles are system, developer, user and assistant",
                              path + ".role");
        cm.content = message_content(m, path, cm.role == MessageRole::Assistant);
        r.messages.push_back(std::move(cm));
    }
    return r;
}

CompletionRequest parse_completion_request(const json& body) {
    CompletionRequest r;
    r.gen = parse_generation(body);
    const json* p = field(body, "prompt");
    if (!p) throw bad_request("'prompt' is required", "prompt");
    if (p->is_string()) {
        r.prompt = p->get<std::string>();
    } else if (p->is_array() && p->size() == 1 && (*p)[0].is_string()) {
        r.prompt = (*p)[0].get<std::string>();
    } else if (p->is_array() && !p->empty() && (*p)[0].is_number()) {
        for (std::size_t i = 0; i < p->size(); ++i) {
            const json& v = (*p)[i];
            if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
                v.get<int64_t>() > std::numeric_limits<int32_t>::max())
                throw bad_request("'prompt[" + std::to_string(i) + "]' must be a token id", "prompt");
            r.prompt_ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
        }
    } else {
        throw bad_request("'prompt' must be a string, an array of one string, or an array of token ids",
                          "prompt");
    }
    if (r.prompt.empty() && r.prompt_ids.empty()) throw bad_request("'prompt' must not be empty", "prompt");
    return r;
}

}  // namespace snapdoc::server
