// What the one engine thread does with a job (JobQueue's runner): find or build the document
// session for the prompt (RAM table, then the on-disk K/V cache, else a layer-major prefill of the
// document part), run the rest of the prompt over its stored K/V, select (SnapKV above
// --snapkv-min-tokens, full attention below), decode, and send text and the outcome as events.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "app/server/document_registry.h"
#include "app/server/job.h"
#include "app/server/server_config.h"
#include "app/server/session_table.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::server {

// A shared chat template opening (a system prompt) is not a document: below this many shared
// tokens a prompt's document part is prefilled on its own.
inline constexpr int kMinSharedTokens = 256;

class EngineWorker {
public:
    EngineWorker(const ServerConfig& config, Backend& backend, const Tokenizer& tokenizer,
                 ChatTemplateKind kind, const std::filesystem::path& model_path, int run_context_length,
                 SessionTable& sessions, DocumentRegistry& documents);

    void run(Job& job);

    // Counters for /props (and the tests that check that a client leaving stops its generation).
    struct Stats {
        int64_t completed = 0, cancelled = 0, failed = 0, generated_tokens = 0;
    };
    Stats stats() const;

    // With job.return_progress: a prompt_progress event (`cache` tokens reused, `processed` of
    // job.prompt_total read so far, cache included, as llama-server counts them).
    static void report_progress(Job& job, int cache, int processed);

private:
    void run_prompt(Job& job);  // chat / completion over an automatic document session
    // The automatic session for job.prompt (held, restored from the K/V cache, partly reused from
    // the one sharing the longest prefix, or prefilled); `source` and the document tokens `reused`
    // (not run through the layers for this request) say which.
    std::shared_ptr<HeldSession> session_for_prompt(Job& job, std::string& source, int& reused);
    // Leading tokens a document part of `document_part` tokens must share with a held one to be
    // built from it: half of it or --snapkv-min-tokens, whichever is less, and kMinSharedTokens.
    int min_shared_tokens(int document_part) const;
    void run_document_chat(Job& job);     // chat with "document_id"
    void run_document_prefill(Job& job);  // POST /v1/documents
    // `owner`'s K/V cache files are its own: the owner is mixed into the cache key.
    std::unique_ptr<DocumentChat> new_chat(bool cacheable, const std::string& owner);
    // A document the request names (`field`: its request field, for the error), or 404 / 400 in
    // words when it is unknown or its prefill failed.
    DocumentInfo answerable_document(const std::string& id, const char* field) const;
    // A held session taken by this request: another client's turns after the document are forgotten.
    static void hand_over(HeldSession& held, const Job& job);
    std::shared_ptr<HeldSession> explicit_session(Job& job, std::string& source);
    // Several documents ("document_ids"): their held set session, or one built from the longest
    // leading subset held (prefilling only the rest), from the K/V cache, or by a prefill.
    // `reused`: document tokens this request did not run through the layers.
    std::shared_ptr<HeldSession> document_set_session(Job& job, std::string& source, int& reused);
    // An explicit document's loaded chat as a held session, with its pages for citations.
    std::shared_ptr<HeldSession> hold_document(const Job& job, const DocumentInfo& info,
                                               std::unique_ptr<DocumentChat> chat) const;
    // Decodes with `ask` (which calls ask_tokens or ask) and reports text and outcome as events.
    template <typename Ask>
    // `document_reused`: document tokens whose K/V this request did not compute.
    void answer(Job& job, HeldSession& held, const std::string& source, int document_reused, Ask&& ask);

    const ServerConfig& config_;
    Backend& backend_;
    const Tokenizer& tokenizer_;
    ChatTemplateKind kind_;
    std::filesystem::path model_path_;
    int run_context_length_;
    SessionTable& sessions_;
    DocumentRegistry& documents_;
    std::unique_ptr<KvStoreCache> kv_cache_;
    ModelIdentity identity_;
    uint64_t next_auto_ = 0;
    std::atomic<int64_t> completed_{0}, cancelled_{0}, failed_{0}, generated_tokens_{0};
};

}  // namespace snapdoc::server
