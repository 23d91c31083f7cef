#include "app/server/engine_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "app/server/activity_log.h"
#include "app/server/api_error.h"
#include "app/server/prompt_plan.h"
#include "app/server/stop_matcher.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/kv/checksum64.h"

namespace snapdoc::server {

namespace {

void fail(Job& job, const ApiError& e) {
    job.events.push(JobEvent::failed_event(e.status(), e.body()));
}

// The held session of documents [ids] in that order ("set:doc-1+doc-2"): a leading subset's name
// is a prefix of it, but sessions are only ever found by their whole name.
std::string set_session_name(std::span<const std::string> ids) {
    std::string name = "set:";
    for (std::size_t i = 0; i < ids.size(); ++i) name += (i ? "+" : "") + ids[i];
    return name;
}

}  // namespace

EngineWorker::EngineWorker(const ServerConfig& config, Backend& backend, const Tokenizer& tokenizer,
                           ChatTemplateKind kind, const std::filesystem::path& model_path,
                           int run_context_length, SessionTable& sessions, DocumentRegistry& documents)
    : config_(config),
      backend_(backend),
      tokenizer_(tokenizer),
      kind_(kind),
      model_path_(model_path),
      run_context_length_(run_context_length),
      sessions_(sessions),
      documents_(documents) {
    if (config_.kv_cache) {
        kv_cache_ = std::make_unique<KvStoreCache>(
            config_.kv_cache_dir.empty() ? KvStoreCache::default_dir() : config_.kv_cache_dir,
            config_.kv_cache_cap_bytes);
        // Through the cache folder's memo, as `ask` and the app do: a model is hashed once, not at
        // every server start.
        identity_ = kv_cache_->model_identity(model_path_);
    }
}

std::unique_ptr<DocumentChat> EngineWorker::new_chat(bool cacheable, const std::string& owner) {
    auto chat = std::make_unique<DocumentChat>(backend_, tokenizer_, kind_);
    if (kv_cache_ && cacheable) {
        // The anonymous owner's files are the app's and the CLI's too (the identity unchanged);
        // a key's get other names, so another key never finds (or learns of) them.
        ModelIdentity identity = identity_;
        if (!owner.empty()) identity.content_hash ^= checksum64(owner.data(), owner.size(), 0x6b76636163686521ull);
        chat->set_kv_cache(kv_cache_.get(), identity, run_context_length_);
        // Sessions live on in the table: a restored file is copied, never held mapped, so a cache
        // file truncated while its session is held cannot end the server with SIGBUS.
        chat->set_kv_load_mode(KvFileLoad::Read);
    }
    return chat;
}

EngineWorker::Stats EngineWorker::stats() const {
    return {completed_.load(), cancelled_.load(), failed_.load(), generated_tokens_.load()};
}

void EngineWorker::run(Job& job) {
    job.started = SteadyClock::now();
    // However the job ends; the next one in the queue logs its own activity right after.
    struct IdleWhenDone {
        ~IdleWhenDone() { log_idle(); }
    } idle_when_done;
    try {
        switch (job.kind) {
            case Job::Kind::Document:
                return run_document_prefill(job);
            case Job::Kind::Chat:
                if (!job.document_id.empty() || !job.document_ids.empty()) return run_document_chat(job);
                return run_prompt(job);
            case Job::Kind::Completion:
                return run_prompt(job);
        }
    } catch (const Cancelled&) {
        ++cancelled_;
        fail(job, ApiError(499, "cancelled", "the request was cancelled"));
    } catch (const ApiError& e) {
        ++failed_;
        fail(job, e);
    } catch (const std::exception& e) {
        ++failed_;
        spdlog::error("request failed: {}", e.what());
        fail(job, ApiError(500, "server_error", e.what()));
    }
}

template <typename Ask>
void EngineWorker::answer(Job& job, HeldSession& held, const std::string& source, int document_reused,
                          Ask&& ask) {
    const auto t0 = job.started;
    StopMatcher matcher(job.stop);
    bool stop_hit = false;
    double first_token_seconds = -1;
    AskOptions opts;
    opts.snapkv = job.snapkv;
    opts.sampling = job.sampling;
    opts.max_new_tokens = job.max_new_tokens;
    opts.stop_at_eos = !job.ignore_eos;
    opts.citations = config_.citations;
    opts.history_keep_tokens = config_.history_keep_tokens;
    opts.cancel = &job.cancel;
    opts.on_text = [&](const std::string& text) {
        if (first_token_seconds < 0) {
            first_token_seconds = seconds_since(t0);
            report_progress(job, document_reused, job.prompt_total);  // the whole prompt is read
        }
        std::string out = matcher.push(text);
        if (!out.empty()) job.events.push(JobEvent::text_event(std::move(out)));
        if (matcher.stopped() && !stop_hit) {
            stop_hit = true;
            job.cancel.store(true);  // the engine stops before the next token
        }
    };
    log_answering();
    const AskResult r = ask(opts);
    if (std::string rest = matcher.flush(); !rest.empty())
        job.events.push(JobEvent::text_event(std::move(rest)));
    const AnswerResult& g = r.generation;
    generated_tokens_ += static_cast<int64_t>(g.tokens.size());
    if (g.stop == StopReason::Cancelled && !stop_hit) throw Cancelled();  // the client went away

    DocumentChat& chat = *held.chat;
    Outcome o;
    o.finish_reason = stop_hit || g.stop == StopReason::EndOfSequence ? "stop" : "length";
    o.prompt_tokens = g.prompt_tokens;
    o.completion_tokens = static_cast<int>(g.tokens.size());
    o.document_tokens = chat.session().document_tokens();
    o.reused_tokens = document_reused + r.reused_tokens;
    o.compressed_tokens = r.selection->compressed ? o.prompt_tokens : 0;
    o.kept_entries = r.selection->kept_entries();
    o.full_entries = r.selection->full_entries(backend_.config().n_kv_heads);
    o.kv_bytes_full = g.kv_bytes_full;
    o.kv_bytes_compressed = g.kv_bytes_compressed;
    o.session = source;
    o.prompt_seconds = first_token_seconds >= 0 ? first_token_seconds : seconds_since(t0);
    for (const Citation& c : r.citations) {
        nlohmann::json j = {{"first_token", c.first_token},
                            {"last_token", c.last_token},
                            {"weight", c.weight},
                            {"text", chat.document_excerpt(c.first_token, c.last_token, 2000)}};
        if (held.set_ids.size() > 1) {
            // Several documents: which one (its name and id), and the page within it.
            const DocumentSetCitations::Source src = held.set_sources.locate(c);
            j["document"] = held.set_names[src.document];
            j["document_id"] = held.set_ids[src.document];
            j["document_index"] = src.document + 1;
            if (src.page > 0) j["page"] = src.page;
        } else if (const int page = held.pages.page_of(c); page > 0) {
            j["page"] = page;  // 1-based, for an uploaded PDF; left out where the document has no pages
        }
        o.citations.push_back(std::move(j));
    }
    ++completed_;
    job.events.push(JobEvent::done_event(std::move(o)));
}

void EngineWorker::report_progress(Job& job, int cache, int processed) {
    if (!job.return_progress) return;
    const int total = std::max(job.prompt_total, 0);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - job.started).count();
    job.events.push(JobEvent::progress_event({{"total", total},
                                              {"cache", std::clamp(cache, 0, total)},
                                              {"processed", std::clamp(processed, 0, total)},
                                              {"time_ms", ms}}));
}

// A prefill callback that logs (PrefillLog) and reports prompt progress for `tokens` prefilled
// after `before` tokens of the prompt.
static auto progress_logger(Job& job, int before, int tokens) {
    return [&job, before, tokens, log = PrefillLog{}](const PrefillProgress& p) mutable {
        log(p);
        EngineWorker::report_progress(job, 0, before + static_cast<int>(p.fraction * tokens));
    };
}

int EngineWorker::min_shared_tokens(int document_part) const {
    return std::max(kMinSharedTokens, std::min(document_part / 2, config_.snapkv_min_tokens));
}

std::shared_ptr<HeldSession> EngineWorker::session_for_prompt(Job& job, std::string& source, int& reused) {
    const std::vector<int32_t>& ids = job.prompt.ids;
    const int n = static_cast<int>(ids.size());
    // 1. A held document part the prompt starts with, when what follows is short enough to run at
    // once and it holds a real part of the prompt (a shared template opening is not a document).
    if (auto held = sessions_.find_prefix(ids, job.scope)) {
        const int D = held->chat->session().document_tokens();
        if (n - D <= config_.max_tail_tokens && D >= std::min(n / 2, config_.snapkv_min_tokens)) {
            source = "ram";
            reused = D;
            return held;
        }
    }
    const SplitCandidates c = split_candidates(job.prompt, config_.max_tail_tokens);
    int end = c.ends.front();
    // 2. A candidate document part with a K/V cache file (an evicted session, or one from before a
    // restart) comes back from it.
    bool from_file = false;
    if (kv_cache_) {
        auto probe = new_chat(true, job.owner);
        for (int e : c.ends)
            if (e >= config_.snapkv_min_tokens && probe->kv_cache_has(std::span(ids).first(e))) {
                end = e;
                from_file = true;
                break;
            }
    }
    const std::span<const int32_t> part = std::span(ids).first(end);
    auto chat = new_chat(end >= config_.snapkv_min_tokens, job.owner);
    reused = 0;
    // 3. Partial prefix reuse: the document part held (or cached) that shares the most leading
    // tokens with this one gives them their K/V; only the rest is prefilled.
    const SessionTable::CommonPrefix shared =
        from_file ? SessionTable::CommonPrefix{} : sessions_.longest_common_prefix(part, job.scope);
    if (shared.common >= min_shared_tokens(end)) {
        std::unique_ptr<DocumentChat> restored;
        const DocumentChat* base = shared.held ? shared.held->chat.get() : nullptr;
        if (!base && kv_cache_) {
            restored = new_chat(true, job.owner);
            if (restored->kv_cache_has(shared.evicted_ids)) {
                restored->load_document_tokens(shared.evicted_ids, {}, &job.cancel);
                if (restored->served_from_cache()) base = restored.get();
            }
        }
        if (base) {
            reused = chat->load_document_tokens_from(*base, part, &job.cancel);
            source = "partial";
        }
    }
    if (source.empty()) {
        chat->load_document_tokens(part, progress_logger(job, 0, end), &job.cancel);
        source = chat->served_from_cache() ? "kv-cache" : "new";
        reused = chat->served_from_cache() ? end : 0;
    }
    auto held = std::make_shared<HeldSession>();
    held->name = "auto-" + std::to_string(++next_auto_);
    held->scope = job.scope;
    held->chat = std::move(chat);
    sessions_.insert(held);
    return held;
}

void EngineWorker::run_prompt(Job& job) {
    const auto t0 = SteadyClock::now();
    const std::vector<int32_t>& ids = job.prompt.ids;
    const int n = static_cast<int>(ids.size());
    if (n < 2) throw bad_request("the prompt must have at least 2 tokens", "prompt");
    report_progress(job, 0, 0);
    std::string source;
    int reused = 0;
    std::shared_ptr<HeldSession> held = session_for_prompt(job, source, reused);
    sessions_.touch(*held);
    const int D = held->chat->session().document_tokens();
    const int keep = history_keep_from(job.prompt, D, config_.history_keep_tokens);
    if (!job.snapkv_enabled) job.snapkv.enabled = config_.snapkv.enabled && n >= config_.snapkv_min_tokens;
    spdlog::info("prompt {} tokens: document part {} ({}, {} reused), tail {}, {} in {:.3f} s", n, D, source,
                 reused, n - D, job.snapkv.enabled ? "snapkv" : "full attention", seconds_since(t0));
    sessions_.evict(held.get());  // before answering: the client may look at /props right after
    answer(job, *held, source, reused, [&](const AskOptions& opts) {
        return held->chat->ask_tokens(std::span(ids).subspan(D), keep, opts);
    });
}

DocumentInfo EngineWorker::answerable_document(const std::string& id, const char* field) const {
    const auto info = documents_.get(id);
    if (!info) throw not_found("no document '" + id + "'");
    if (info->status == "failed") throw bad_request("document '" + id + "' failed: " + info->error, field);
    return *info;
}

void EngineWorker::hand_over(HeldSession& held, const Job& job) {
    // What the last asker's prompt left after the document (its question, the answer) must not be
    // reused, and so reported, for another client's prompt.
    if (held.scope != job.scope) held.chat->session().forget_turns();
    held.scope = job.scope;
}

std::shared_ptr<HeldSession> EngineWorker::document_set_session(Job& job, std::string& source, int& reused) {
    const std::vector<std::string>& ids = job.document_ids;
    std::vector<SetDocument> docs;
    std::string system, owner;
    // Every document is looked up again: one deleted since the request was queued is not answered
    // from a set session that still holds its text.
    for (const std::string& id : ids) {
        const DocumentInfo info = answerable_document(id, "document_ids");
        if (docs.empty()) {
            system = info.system_prompt;
            owner = info.owner;
        }
        docs.push_back({info.name.empty() ? id : info.name, info.text, info.page_starts});
    }
    const std::string name = set_session_name(ids);
    if (auto held = sessions_.find_name(name)) {
        hand_over(*held, job);
        source = "ram";
        reused = held->chat->session().document_tokens();
        return held;
    }
    DocumentSetPart part;
    try {
        part = build_document_set_part(kind_, tokenizer_, system, docs);
    } catch (const Error& e) {
        throw bad_request(e.what(), "document_ids");
    }
    auto chat = new_chat(true, owner);
    reused = 0;
    source.clear();
    // The longest leading subset held as a set session ([A, B] for [A, B, C]): its ids are a prefix
    // of this part's, so only the rest is prefilled.
    for (std::size_t k = ids.size() - 1; k >= 2 && source.empty(); --k) {
        const auto base = sessions_.find_name(set_session_name(std::span(ids).first(k)));
        if (!base) continue;
        reused = chat->load_document_tokens_from(*base->chat, part.ids, &job.cancel, system);
        source = "partial";
    }
    if (source.empty()) {
        chat->load_document_tokens(part.ids, progress_logger(job, 0, static_cast<int>(part.ids.size())), &job.cancel,
                                   system);
        source = chat->served_from_cache() ? "kv-cache" : "new";
        reused = chat->served_from_cache() ? static_cast<int>(part.ids.size()) : 0;
    }
    spdlog::info("documents {}: {} tokens ({}, {} reused)", name, part.ids.size(), source, reused);
    auto held = std::make_shared<HeldSession>();
    held->name = name;
    held->explicit_document = true;
    held->scope = job.scope;
    held->set_ids = ids;
    for (const SetDocument& d : docs) held->set_names.push_back(d.name);
    held->set_sources = DocumentSetCitations(tokenizer_, part, docs);
    held->chat = std::move(chat);
    sessions_.insert(held);
    return held;
}

std::shared_ptr<HeldSession> EngineWorker::explicit_session(Job& job, std::string& source) {
    const std::string& id = job.document_id;
    source = "ram";
    if (auto held = sessions_.find_name(id)) {
        hand_over(*held, job);
        return held;
    }
    const DocumentInfo info = answerable_document(id, "document_id");
    auto chat = new_chat(true, info.owner);
    chat->load_document(info.text, progress_logger(job, 0, info.tokens), &job.cancel, info.system_prompt);
    source = chat->served_from_cache() ? "kv-cache" : "new";
    auto held = hold_document(job, info, std::move(chat));
    sessions_.insert(held);
    return held;
}

std::shared_ptr<HeldSession> EngineWorker::hold_document(const Job& job, const DocumentInfo& info,
                                                         std::unique_ptr<DocumentChat> chat) const {
    auto held = std::make_shared<HeldSession>();
    held->name = info.id;
    held->explicit_document = true;
    held->scope = job.scope;
    held->pages = CitationPages(tokenizer_, chat->document_ids(), info.text, info.page_starts);
    held->chat = std::move(chat);
    return held;
}

void EngineWorker::run_document_chat(Job& job) {
    report_progress(job, 0, 0);
    std::string source;
    int reused = 0;
    auto held = job.document_ids.empty() ? explicit_session(job, source) : document_set_session(job, source, reused);
    if (job.document_ids.empty()) reused = source != "new" ? held->chat->session().document_tokens() : 0;
    sessions_.touch(*held);
    if (!job.snapkv_enabled)
        job.snapkv.enabled =
            config_.snapkv.enabled &&
            held->chat->prompt_tokens_for(job.question, job.history) >= config_.snapkv_min_tokens;
    sessions_.evict(held.get());
    answer(job, *held, source, reused,
           [&](AskOptions opts) {
               opts.history = job.history;
               return held->chat->ask(job.question, opts);
           });
}

void EngineWorker::run_document_prefill(Job& job) {
    const std::string id = job.document_id;
    const auto info = documents_.get(id);
    if (!info) return;  // deleted while queued
    documents_.update(id, [](DocumentInfo& d) { d.status = "prefilling"; });
    try {
        auto chat = new_chat(true, info->owner);
        const auto t0 = SteadyClock::now();
        PrefillLog log;
        chat->load_document(
            info->text,
            [&](const PrefillProgress& p) {
                log(p);
                documents_.update(id, [&](DocumentInfo& d) { d.progress = p.fraction; });
            },
            &job.cancel, info->system_prompt);
        const double seconds = seconds_since(t0);
        const bool cached = chat->served_from_cache();
        const int tokens = chat->session().document_tokens();
        if (!documents_.get(id)) return;  // deleted during the prefill
        auto held = hold_document(job, *info, std::move(chat));
        sessions_.erase(id);
        sessions_.insert(held);
        documents_.update(id, [&](DocumentInfo& d) {
            d.status = "ready";
            d.progress = 1.0;
            d.tokens = tokens;
            d.from_kv_cache = cached;
            d.prefill_seconds = seconds;
        });
        sessions_.evict(held.get());
    } catch (const Cancelled&) {
        documents_.update(id, [](DocumentInfo& d) {
            d.status = "failed";
            d.error = "cancelled";
        });
    } catch (const std::exception& e) {
        documents_.update(id, [&](DocumentInfo& d) {
            d.status = "failed";
            d.error = e.what();
        });
    }
    job.events.push(JobEvent::done_event());
}

}  // namespace snapdoc::server
