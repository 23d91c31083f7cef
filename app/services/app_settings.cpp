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
            {"chat_template", g.chat_template}};
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
    const json win = parse_setting(store, "window");
    read(win, "geometry", s.window_geometry);
    read(win, "state", s.window_state);
    return s;
}

void save_settings(LibraryStore& store, const AppSettings& s) {
    store.set_settings({{"generation", to_json(s.generation).dump()},
                        {"snapkv", to_json(s.snapkv).dump()},
                        {"recent_documents", json{{"paths", s.recent_documents}}.dump()},
                        {"recent_models", json{{"paths", s.recent_models}}.dump()},
                        {"window", json{{"geometry", s.window_geometry}, {"state", s.window_state}}.dump()}});
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
