// DocumentChat's use of the on-disk K/V cache: restore a document's K/V from its cache file when
// there is a valid one, else prefill and write one. The cache only ever saves time: anything wrong
// with it (a corrupt file, a full disk, an unwritable folder) is a warning and a normal prefill.
// The warning is cache_report().note, which the caller shows (the CLI on stderr, the app in its
// status); it is logged at info level only, so it is not printed twice.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/session/document_chat.h"

namespace snapdoc {

void DocumentChat::set_kv_cache(KvStoreCache* cache, const ModelIdentity& model, int run_context_length) {
    kv_cache_ = cache;
    model_identity_ = model;
    if (cache) {
        // The cap applies from the start (a folder over it, or a lowered cap, is not left so until
        // the next write), and leftovers of killed writers go now.
        cache->evict();
        tokenizer_hash_ = tokenizer_identity(tokenizer_);
        compute_hash_ = compute_identity(backend_.config(), run_context_length);
    }
}

bool DocumentChat::kv_cache_has(std::span<const int32_t> part, std::string_view system_prompt) const {
    if (!kv_cache_) return false;
    return kv_cache_->contains(
        make_kv_cache_key(model_identity_, tokenizer_hash_, compute_hash_, kind_, system_prompt, part));
}

void DocumentChat::load_or_prefill(std::span<const int32_t> part, std::string_view system_prompt,
                                   const DocumentSession::Progress& progress,
                                   const std::atomic<bool>* cancel) {
    cache_report_ = {};
    if (!kv_cache_) {
        const auto t0 = SteadyClock::now();
        session_.prefill_document(part, progress, cancel);
        cache_report_.prefill_seconds = seconds_since(t0);
        return;
    }
    cache_report_.enabled = true;
    const KvCacheKey key =
        make_kv_cache_key(model_identity_, tokenizer_hash_, compute_hash_, kind_, system_prompt, part);
    const std::filesystem::path file = kv_cache_->path_for(key);
    cache_report_.file = file;
    std::error_code ec;
    // Anything at the name, not following links: a dangling link or a FIFO is tried, refused and
    // removed like a corrupt file, so it never turns caching off for this document.
    if (kv_cache_->occupied(file)) {
        const auto t0 = SteadyClock::now();
        try {
            session_.restore_document_cache(file, key, part, kv_load_mode_);
            cache_report_.load_seconds = seconds_since(t0);
            cache_report_.served = true;
            cache_report_.file_bytes = static_cast<int64_t>(std::filesystem::file_size(file, ec));
            kv_cache_->touch(file);
            spdlog::info("K/V cache: {} tokens restored from {} in {:.3f} s", part.size(), file.string(),
                         cache_report_.load_seconds);
            return;
        } catch (const Error& e) {
            // Never trusted: the file goes and the document is prefilled (and cached) again.
            cache_report_.load_seconds = seconds_since(t0);
            cache_report_.note = std::string("the K/V cache file was not usable and is rebuilt: ") + e.what();
            spdlog::info("{}", cache_report_.note);
            kv_cache_->remove(file);
        }
    }
    const auto t0 = SteadyClock::now();
    session_.prefill_document(part, progress, cancel);
    cache_report_.prefill_seconds = seconds_since(t0);
    if (cancel && cancel->load()) return;
    save_kv_cache_file(part, key, file);
}

void DocumentChat::save_kv_cache_file(std::span<const int32_t> part, const KvCacheKey& key,
                                      const std::filesystem::path& file) {
    const auto t0 = SteadyClock::now();
    try {
        kv_cache_->ensure_dir();
        const int64_t bytes = kv_store_file_bytes(
            {backend_.config().n_layers, backend_.config().n_kv_heads, backend_.config().head_dim,
             backend_.config().q_dim(), static_cast<int>(part.size()),
             std::min<int>(static_cast<int>(part.size()), session_.max_window())});
        if (std::string why = kv_cache_->room_for(bytes); !why.empty()) {
            cache_report_.note = "not saved to the K/V cache: " + why;
            spdlog::info("{}", cache_report_.note);
            return;
        }
        kv_cache_->clear_name(file);  // the file written is always a regular file, never through a link
        session_.save_document_cache(file, key, part);
        cache_report_.saved = true;
        cache_report_.file_bytes = bytes;
        cache_report_.save_seconds = seconds_since(t0);
        kv_cache_->evict(file);
        spdlog::info("K/V cache: wrote {} ({} MiB) in {:.3f} s", file.string(), bytes >> 20,
                     cache_report_.save_seconds);
    } catch (const Error& e) {
        cache_report_.save_seconds = seconds_since(t0);
        cache_report_.note = std::string("not saved to the K/V cache: ") + e.what();
        spdlog::info("{}", cache_report_.note);
    }
}

int DocumentChat::load_document_tokens_from(const DocumentChat& base, std::span<const int32_t> part,
                                            const std::atomic<bool>* cancel, std::string_view system_prompt) {
    const std::vector<int32_t>& shared = base.document_ids();
    const auto common = static_cast<int>(
        std::mismatch(part.begin(), part.end(), shared.begin(), shared.end()).first - part.begin());
    const int reuse = session_.reusable_rows(base.session(), common, static_cast<int>(part.size()));
    cache_report_ = {};
    cache_report_.enabled = kv_cache_ != nullptr;
    const auto t0 = SteadyClock::now();
    session_.prefill_document_from(base.session(), reuse, part, {}, cancel);
    cache_report_.prefill_seconds = seconds_since(t0);
    document_seconds_ = cache_report_.prefill_seconds;
    remember_document(part);
    if (kv_cache_) {
        const KvCacheKey key = make_kv_cache_key(model_identity_, tokenizer_hash_, compute_hash_, kind_, system_prompt, part);
        cache_report_.file = kv_cache_->path_for(key);
        save_kv_cache_file(part, key, cache_report_.file);
    }
    return reuse;
}

}  // namespace snapdoc
