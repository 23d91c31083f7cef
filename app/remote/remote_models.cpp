#include "app/remote/remote_models.h"

#include <charconv>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/remote/remote_http.h"
#include "engine/common/error.h"

namespace snapdoc::remote {

namespace {

using json = nlohmann::json;

json parse_or_null(const HttpReply& r) {
    if (!r.ok()) return nullptr;
    json j = json::parse(r.body, nullptr, false);
    return j.is_discarded() ? json(nullptr) : j;
}

int64_t positive_int(const json& j, std::string_view key) {
    if (!j.is_object()) return 0;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return 0;
    const int64_t v = it->get<int64_t>();
    return v > 0 ? v : 0;
}

// A probe of a route the server may not have: any failure (404, not JSON, refused) is "not this".
json probe_get(const RemoteEndpoint& ep, const std::string& url) {
    try {
        return parse_or_null(http_get(ep, url));
    } catch (const Cancelled&) {
        throw;
    } catch (const Error&) {
        return nullptr;
    }
}

json probe_post(const RemoteEndpoint& ep, const std::string& url, const json& body) {
    try {
        return parse_or_null(http_post_json(ep, url, body));
    } catch (const Cancelled&) {
        throw;
    } catch (const Error&) {
        return nullptr;
    }
}

// Ollama's /api/show: "num_ctx N" in the model's parameters (what it runs with), else the
// architecture's "<arch>.context_length" in model_info (what it was trained for).
void ollama_context(const RemoteEndpoint& ep, RemoteModel& m, bool* is_ollama) {
    const json show = probe_post(ep, ep.at("/api/show"), {{"model", m.id}});
    if (!show.is_object() || !show.contains("model_info")) return;
    *is_ollama = true;
    if (const auto p = show.find("parameters"); p != show.end() && p->is_string()) {
        std::istringstream lines(p->get<std::string>());
        std::string name;
        int64_t value = 0;
        for (std::string line; std::getline(lines, line);) {
            std::istringstream words(line);
            if (words >> name >> value && name == "num_ctx" && value > 0) {
                m.context = value;
                m.context_source = "Ollama /api/show parameters num_ctx";
                return;
            }
        }
    }
    const json& info = show["model_info"];
    if (!info.is_object()) return;
    const std::string arch = info.value("general.architecture", "");
    if (arch.empty()) return;
    if (const int64_t c = positive_int(info, arch + ".context_length")) {
        m.context = c;
        m.context_source = "Ollama /api/show model_info " + arch + ".context_length";
    }
}

}  // namespace

std::string_view engine_name(EngineKind kind) {
    switch (kind) {
        case EngineKind::SnapdocServer: return "snapdoc-server";
        case EngineKind::Vllm: return "vLLM";
        case EngineKind::LlamaServer: return "llama-server";
        case EngineKind::Ollama: return "Ollama";
        case EngineKind::LmStudio: return "LM Studio";
        case EngineKind::OpenAiCompatible: return "OpenAI-compatible server";
    }
    return "?";
}

RemoteServer discover(const RemoteEndpoint& ep, std::string_view context_for) {
    RemoteServer server;
    const std::string models_url = ep.v1("/models");
    const HttpReply listing = http_get(ep, models_url);
    if (!listing.ok()) throw_http_error(models_url, listing, !ep.api_key.empty());
    const json list = json::parse(listing.body, nullptr, false);
    if (!list.is_object() || !list.contains("data") || !list["data"].is_array())
        throw Error(models_url + ": not an OpenAI model list (no \"data\" array): is this an OpenAI-compatible server?");
    bool vllm = false;
    for (const json& m : list["data"]) {
        if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
        RemoteModel model;
        model.id = m["id"].get<std::string>();
        if (const int64_t c = positive_int(m, "max_model_len")) {  // vLLM's extension field
            model.context = c;
            model.context_source = "/v1/models max_model_len";
            vllm = true;
        }
        if (m.value("owned_by", "") == "vllm") vllm = true;
        server.models.push_back(std::move(model));
    }
    if (server.models.empty()) throw Error(models_url + ": the server lists no models");
    const auto set_all = [&](int64_t ctx, const std::string& source) {
        for (RemoteModel& m : server.models)
            if (m.context == 0) {
                m.context = ctx;
                m.context_source = source;
            }
    };
    if (vllm) {
        server.kind = EngineKind::Vllm;
        return server;
    }
    // snapdoc-server's /props has its SnapKV defaults next to context_length; llama-server's has
    // default_generation_settings with n_ctx (older versions: n_ctx at the top).
    const json props = probe_get(ep, ep.at("/props"));
    if (props.is_object()) {
        if (props.contains("snapkv") && props["snapkv"].is_object() && positive_int(props, "context_length")) {
            server.kind = EngineKind::SnapdocServer;
            server.prompt_bytes_per_token = positive_int(props, "prompt_bytes_per_token");
            set_all(positive_int(props, "context_length"), "snapdoc-server /props context_length");
            return server;
        }
        int64_t n_ctx = 0;
        if (const auto d = props.find("default_generation_settings"); d != props.end())
            n_ctx = positive_int(*d, "n_ctx");
        if (!n_ctx) n_ctx = positive_int(props, "n_ctx");
        if (n_ctx) {
            server.kind = EngineKind::LlamaServer;
            set_all(n_ctx, "llama-server /props n_ctx");
            return server;
        }
    }
    // LM Studio: the context a loaded model runs with, else the model's maximum.
    const json lms = probe_get(ep, ep.at("/api/v0/models"));
    if (lms.is_object() && lms.contains("data") && lms["data"].is_array()) {
        bool any = false;
        for (const json& e : lms["data"]) {
            if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) continue;
            for (RemoteModel& m : server.models) {
                if (m.id != e["id"].get<std::string>() || m.context) continue;
                if (const int64_t c = positive_int(e, "loaded_context_length")) {
                    m.context = c;
                    m.context_source = "LM Studio /api/v0/models loaded_context_length";
                } else if (const int64_t c2 = positive_int(e, "max_context_length")) {
                    m.context = c2;
                    m.context_source = "LM Studio /api/v0/models max_context_length";
                }
                any = true;
            }
        }
        if (any) {
            server.kind = EngineKind::LmStudio;
            return server;
        }
    }
    bool ollama = false;
    int asked = 0;
    for (RemoteModel& m : server.models) {
        if (!context_for.empty() && m.id != context_for) continue;
        if (++asked > 32) break;
        ollama_context(ep, m, &ollama);
        if (!ollama) break;  // the first answer tells whether this is Ollama at all
    }
    if (ollama) server.kind = EngineKind::Ollama;
    return server;
}

const RemoteModel& choose_model(const RemoteServer& server, std::string_view wanted) {
    std::string ids;
    for (const RemoteModel& m : server.models) {
        if (!wanted.empty() && m.id == wanted) return m;
        ids += (ids.empty() ? "" : ", ") + m.id;
    }
    if (!wanted.empty())
        throw Error("the server has no model '" + std::string(wanted) + "'; it lists: " + ids);
    if (server.models.size() == 1) return server.models.front();
    throw Error("the server lists " + std::to_string(server.models.size()) + " models (" + ids +
                "): choose one with --model NAME");
}

}  // namespace snapdoc::remote
