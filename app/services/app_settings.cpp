#include "app/services/app_settings.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"

namespace snapdoc::services {

namespace {

using nlohmann::json;

json to_json(const SamplingParams& s) {
    return {{"temperature", s.temperature},
            {"top_k", s.top_k},
            {"top_p", s.top_p},
            {"min_p", s.min_p},
            {"repetition_penalty", s.repetition_penalty},
            {"repetition_window", s.repetition_window},
            {"seed", s.seed}};
}

json to_json(const SnapKvConfig& c) {
    return {{"enabled", c.enabled},
            {"budget", c.budget},
            {"window", c.window},
            {"kernel", c.kernel},
            {"pooling", pooling_name(c.pooling)},
            {"gqa", gqa_mode_name(c.gqa)},
            {"policy", budget_policy_name(c.policy)}};
}

json to_json(const GenerationSettings& g) {
    return {{"sampling", to_json(g.sampling)},
            {"max_new_tokens", g.max_new_tokens},
            {"threads", g.threads},
            {"device", g.device},
            {"ignore_context", g.ignore_context},
            {"chat_template", g.chat_template},
            {"system_prompt", g.system_prompt},
            {"kv_cache", g.kv_cache},
            {"kv_cache_cap_mb", g.kv_cache_cap_mb}};
}

json to_json(const PrefillProbeSettings& p) {
    return {{"backend", p.backend}, {"n_layers", p.n_layers},     {"dim", p.dim},
            {"n_heads", p.n_heads}, {"n_kv_heads", p.n_kv_heads}, {"head_dim", p.head_dim},
            {"ffn_dim", p.ffn_dim}, {"vocab_size", p.vocab_size}, {"context_length", p.context_length},
            {"tokens", p.tokens},   {"seconds", p.seconds}};
}

// Reads j[key] into `out` when present and of the right type; keeps the default otherwise.
template <typename T>
void read(const json& j, const char* key, T& out) {
    if (!j.is_object() || !j.contains(key)) return;
    try {
        out = j.at(key).get<T>();
    } catch (const json::exception& e) {
        spdlog::warn("setting '{}' ignored: {}", key, e.what());
    }
}

template <typename Enum, typename Parse>
void read_enum(const json& j, const char* key, Enum& out, Parse parse) {
    std::string name;
    read(j, key, name);
    if (name.empty()) return;
    try {
        out = parse(name);
    } catch (const std::exception& e) {
        spdlog::warn("setting '{}' ignored: {}", key, e.what());
    }
}

json parse_setting(LibraryStore& store, const std::string& key) {
    const auto text = store.setting(key);
    if (!text) return json();
    return json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

AppSettings load_settings(LibraryStore& store) {
    AppSettings s;
    const json gen = parse_setting(store, "generation");
    read(gen, "max_new_tokens", s.generation.max_new_tokens);
    read(gen, "threads", s.generation.threads);
    read(gen, "device", s.generation.device);
    if (s.generation.device != "cpu" && s.generation.device != "cuda") s.generation.device = "auto";
    read(gen, "ignore_context", s.generation.ignore_context);
    read(gen, "chat_template", s.generation.chat_template);
    read(gen, "system_prompt", s.generation.system_prompt);
    read(gen, "kv_cache", s.generation.kv_cache);
    read(gen, "kv_cache_cap_mb", s.generation.kv_cache_cap_mb);
    if (s.generation.kv_cache_cap_mb < 0) s.generation.kv_cache_cap_mb = GenerationSettings{}.kv_cache_cap_mb;
    if (gen.is_object() && gen.contains("sampling")) {
        const json& j = gen["sampling"];
        SamplingParams& p = s.generation.sampling;
        read(j, "temperature", p.temperature);
        read(j, "top_k", p.top_k);
        read(j, "top_p", p.top_p);
        read(j, "min_p", p.min_p);
        read(j, "repetition_penalty", p.repetition_penalty);
        read(j, "repetition_window", p.repetition_window);
        read(j, "seed", p.seed);
        try {
            p.validate();
        } catch (const std::exception& e) {
            spdlog::warn("stored sampling settings ignored: {}", e.what());
            p = SamplingParams{};
        }
    }
    const json kv = parse_setting(store, "snapkv");
    SnapKvConfig& c = s.snapkv;
    read(kv, "enabled", c.enabled);
    read(kv, "budget", c.budget);
    read(kv, "window", c.window);
    read(kv, "kernel", c.kernel);
    read_enum(kv, "pooling", c.pooling, parse_pooling);
    read_enum(kv, "gqa", c.gqa, parse_gqa_mode);
    read_enum(kv, "policy", c.policy, parse_budget_policy);
    try {
        c.validate();
    } catch (const std::exception& e) {
        spdlog::warn("stored SnapKV settings ignored: {}", e.what());
        c = SnapKvConfig{};
    }
    read(parse_setting(store, "recent_documents"), "paths", s.recent_documents);
    read(parse_setting(store, "recent_models"), "paths", s.recent_models);
    const json hub = parse_setting(store, "hub");
    read(hub, "endpoint", s.hub.endpoint);
    read(hub, "token", s.hub.token);
    const json server = parse_setting(store, "local_server");
    read(server, "enabled", s.local_server.enabled);
    read(server, "port", s.local_server.port);
    read(server, "api_key", s.local_server.api_key);
    if (s.local_server.port < 0 || s.local_server.port > 65535)
        s.local_server.port = LocalServerSettings{}.port;
    read(parse_setting(store, "documents"), "ocr_language", s.documents.ocr_language);
    // Tesseract's codes only (letters, digits, '_', several joined by '+'); anything else: automatic.
    if (s.documents.ocr_language.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+") !=
        std::string::npos)
        s.documents.ocr_language.clear();
    read(parse_setting(store, "appearance"), "theme", s.appearance.theme);
    if (s.appearance.theme != "light" && s.appearance.theme != "dark") s.appearance.theme = "system";
    const json probe = parse_setting(store, "prefill_probe");
    PrefillProbeSettings& pp = s.prefill_probe;
    read(probe, "backend", pp.backend);
    read(probe, "n_layers", pp.n_layers);
    read(probe, "dim", pp.dim);
    read(probe, "n_heads", pp.n_heads);
    read(probe, "n_kv_heads", pp.n_kv_heads);
    read(probe, "head_dim", pp.head_dim);
    read(probe, "ffn_dim", pp.ffn_dim);
    read(probe, "vocab_size", pp.vocab_size);
    read(probe, "context_length", pp.context_length);
    read(probe, "tokens", pp.tokens);
    read(probe, "seconds", pp.seconds);
    if (pp.tokens <= 0 || !(pp.seconds > 0) || pp.n_layers <= 0 || pp.dim <= 0) pp = PrefillProbeSettings{};
    const json connections = parse_setting(store, "connections");
    if (connections.is_object() && connections.contains("list") && connections["list"].is_array()) {
        for (const json& c : connections["list"]) {
            ConnectionSettings cs;
            read(c, "name", cs.name);
            read(c, "url", cs.url);
            read(c, "api_key", cs.api_key);
            read(c, "ca_cert", cs.ca_cert);
            read(c, "insecure", cs.insecure);
            read(c, "model", cs.model);
            if (!cs.name.empty() && !cs.url.empty()) s.connections.push_back(std::move(cs));
        }
    }
    const json session = parse_setting(store, "session");
    read(session, "document", s.last_document);
    read(session, "conversation", s.last_conversation);
    const json win = parse_setting(store, "window");
    read(win, "geometry", s.window_geometry);
    read(win, "state", s.window_state);
    return s;
}

namespace {

json connections_json(const std::vector<ConnectionSettings>& list) {
    json out = json::array();
    for (const ConnectionSettings& c : list)
        out.push_back({{"name", c.name},
                       {"url", c.url},
                       {"api_key", c.api_key},
                       {"ca_cert", c.ca_cert},
                       {"insecure", c.insecure},
                       {"model", c.model}});
    return json{{"list", out}};
}

// The stored JSON of each settings row, by key.
std::vector<std::pair<std::string, json>> rows(const AppSettings& s) {
    return {{"generation", to_json(s.generation)},
            {"documents", json{{"ocr_language", s.documents.ocr_language}}},
            {"hub", json{{"endpoint", s.hub.endpoint}, {"token", s.hub.token}}},
            {"local_server", json{{"enabled", s.local_server.enabled},
                                  {"port", s.local_server.port},
                                  {"api_key", s.local_server.api_key}}},
            {"appearance", json{{"theme", s.appearance.theme}}},
            {"snapkv", to_json(s.snapkv)},
            {"prefill_probe", to_json(s.prefill_probe)},
            {"recent_documents", json{{"paths", s.recent_documents}}},
            {"recent_models", json{{"paths", s.recent_models}}},
            {"connections", connections_json(s.connections)},
            {"session", json{{"document", s.last_document}, {"conversation", s.last_conversation}}},
            {"window", json{{"geometry", s.window_geometry}, {"state", s.window_state}}}};
}

// Copies into `current` the fields where `mine` differs from `before`, recursing into objects
// (sampling inside generation) so that a sibling field another instance changed survives. Arrays
// and scalars are whole values: a recent-files list is replaced, not merged element-wise.
void merge_changes(json& current, const json& before, const json& mine) {
    for (const auto& [key, value] : mine.items()) {
        const json* old = before.contains(key) ? &before.at(key) : nullptr;
        if (old && *old == value) continue;
        if (old && old->is_object() && value.is_object() && current.contains(key) &&
            current.at(key).is_object())
            merge_changes(current.at(key), *old, value);
        else
            current[key] = value;
    }
}

}  // namespace

void save_settings(LibraryStore& store, const AppSettings& s, AppSettings& baseline) {
    const auto mine = rows(s);
    const auto before = rows(baseline);
    for (std::size_t i = 0; i < mine.size(); ++i) {
        // Named references, not a structured binding: clang 14 cannot capture bindings in a lambda.
        const auto& key = mine[i].first;
        const auto& value = mine[i].second;
        if (value == before[i].second) continue;  // unchanged here: leave whatever is stored
        store.update_setting(key, [&](const std::optional<std::string>& stored) {
            json current = stored ? json::parse(*stored, nullptr, /*allow_exceptions=*/false) : json();
            if (!current.is_object()) return value.dump();  // absent or unreadable: ours whole
            merge_changes(current, before[i].second, value);
            return current.dump();
        });
    }
    baseline = s;
}

void push_recent(std::vector<std::string>& list, const std::string& item) {
    list.erase(std::remove(list.begin(), list.end(), item), list.end());
    list.insert(list.begin(), item);
    if (list.size() > static_cast<std::size_t>(kMaxRecent)) list.resize(kMaxRecent);
}

std::string answer_settings_json(const GenerationSettings& g, const SnapKvConfig& s) {
    json j = to_json(g);
    j.erase("threads");  // how it ran, not what it answered with
    j.erase("device");
    j["snapkv"] = to_json(s);
    return j.dump();
}

}  // namespace snapdoc::services
