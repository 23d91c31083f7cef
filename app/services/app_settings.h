// The app's settings as typed values, persisted as JSON in the library database's settings table
// (one row per group: generation, documents, hub, local_server, appearance, snapkv, prefill_probe, recent_documents,
// recent_models, session, window, connections).
// Unknown or malformed stored values fall back to the defaults field by field, so a settings row
// written by another version never stops the app from starting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/kv/snapkv_config.h"
#include "engine/session/sampler.h"

namespace snapdoc::services {

class LibraryStore;

struct GenerationSettings {
    SamplingParams sampling;
    int max_new_tokens = 256;
    int threads = 0;              // 0: all cores
    std::string device = "auto";  // compute device for the next model load: "auto", "cpu" or "cuda"
    bool ignore_context = false;  // allow prompts longer than the model's trained context
    std::string chat_template;    // "" = detect from the model
    std::string system_prompt;    // default for conversations without their own ("" = none)
    // The on-disk K/V cache (engine/kv/kv_store_cache.h): a document opens without a prefill the
    // second time. Least recently used files go when the folder exceeds the cap.
    bool kv_cache = true;
    int kv_cache_cap_mb = 4096;
};

// The Hugging Face hub for the Get models window (app/hub): "" = $HF_ENDPOINT, else the public
// hub; the token for gated repositories ("" = $HF_TOKEN, else none). Stored like the other settings,
// in the user's own library database, and never written into answers or exports.
struct HubSettings {
    std::string endpoint;
    std::string token;
};

// The app's own snapdoc-server for its loaded model (ui/main/local_server_controller.h): off by
// default; it listens on 127.0.0.1 only, at `port` (0 = any free port), and asks clients for
// `api_key` as a Bearer token when it is not empty.
struct LocalServerSettings {
    bool enabled = false;
    int port = 8080;
    std::string api_key;
};

// The last prefill measured on this machine (a document's prefill probe), kept so that Get models
// predicts prefill times and picks a model that answers in time after a restart, and for a document
// that opened from the K/V cache without any prefill. The shape is the model it was measured with;
// the fit scales it to each model by FLOPs. tokens == 0: none measured yet.
struct PrefillProbeSettings {
    std::string backend;  // "cpu" or "cuda": a probe from one says nothing of the other
    int n_layers = 0, dim = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, ffn_dim = 0;
    int vocab_size = 0, context_length = 0;
    int64_t tokens = 0;
    double seconds = 0;
    bool operator==(const PrefillProbeSettings&) const = default;
};

// A remote engine the app can answer with (Settings > Connections; docs/remote.md): a snapdoc-server
// on another machine, vLLM, llama-server, Ollama, LM Studio. Stored like the hub token, in plain
// text in the user's own library database (the "connections" settings row).
struct ConnectionSettings {
    std::string name;       // shown in the model menu; unique among the connections
    std::string url;        // base URL as typed (with or without /v1)
    std::string api_key;    // "" = none
    std::string ca_cert;    // PEM file to trust for https:// ("" = the system's CAs)
    bool insecure = false;  // trust whatever certificate the server shows
    std::string model;      // one of the endpoint's /v1/models ("" = the only one it lists)
    bool operator==(const ConnectionSettings&) const = default;
};

// How the app looks: "system" (the platform's palette), "light" or "dark" (ui/widgets/app_theme.h).
struct AppearanceSettings {
    std::string theme = "system";
};

// How documents are read: the language Tesseract recognises scanned PDF pages in (its codes:
// "deu", "deu+eng"); "" = automatic, the system locale's language when its traineddata is
// installed, else English (documents::default_ocr_language).
struct DocumentSettings {
    std::string ocr_language;
};

struct AppSettings {
    GenerationSettings generation;
    DocumentSettings documents;
    HubSettings hub;
    LocalServerSettings local_server;
    AppearanceSettings appearance;
    SnapKvConfig snapkv;
    PrefillProbeSettings prefill_probe;
    std::vector<ConnectionSettings> connections;
    std::vector<std::string> recent_documents;  // most recent first
    std::vector<std::string> recent_models;
    // What was on screen when the app was last closed, for the next start (ui/main/main_window_session.cpp):
    // library ids, -1 for none.
    int64_t last_document = -1;
    int64_t last_conversation = -1;
    std::string window_geometry;  // base64 of QWidget::saveGeometry
    std::string window_state;     // base64 of the splitters' states
};

inline constexpr int kMaxRecent = 10;

AppSettings load_settings(LibraryStore& store);
// Writes only what this instance changed: the fields of `settings` that differ from `baseline`
// (what it last loaded or saved), each stored key in its own small transaction that merges the
// changed fields into the row as it is now. Two app instances on one data folder therefore keep
// each other's changes (A's new budget does not reset B's observation window or B's recent
// files). Unchanged keys are not written at all. `baseline` becomes `settings` afterwards.
void save_settings(LibraryStore& store, const AppSettings& settings, AppSettings& baseline);

// Moves `item` to the front of `list` (adding it if absent) and trims to kMaxRecent.
void push_recent(std::vector<std::string>& list, const std::string& item);

// JSON text of the settings an answer used (stored with each message).
std::string answer_settings_json(const GenerationSettings& g, const SnapKvConfig& s);

}  // namespace snapdoc::services
