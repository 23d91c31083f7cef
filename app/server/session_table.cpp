#include "app/server/session_table.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace snapdoc::server {

int64_t HeldSession::bytes() const {
    if (!chat) return 0;
    const DocumentSession& s = chat->session();
    // The f16 store is the bulk; the tail's rows are held as f32 K/V (and Q) per layer.
    return s.full_store_bytes() + s.full_bytes(s.question_tokens());
}

std::shared_ptr<HeldSession> SessionTable::find_prefix(std::span<const int32_t> prompt, const std::string& scope) {
    std::lock_guard lock(mu_);
    std::shared_ptr<HeldSession> best;
    std::size_t best_len = 0;
    for (const auto& s : sessions_) {
        if (s->scope != scope) continue;
        const std::vector<int32_t>& doc = s->chat->document_ids();
        if (doc.empty() || doc.size() >= prompt.size() || doc.size() <= best_len) continue;
        if (std::equal(doc.begin(), doc.end(), prompt.begin())) {
            best = s;
            best_len = doc.size();
        }
    }
    return best;
}

namespace {

int common_prefix(std::span<const int32_t> a, const std::vector<int32_t>& b) {
    return static_cast<int>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
}

}  // namespace

SessionTable::CommonPrefix SessionTable::longest_common_prefix(std::span<const int32_t> prompt,
                                                             const std::string& scope) const {
    std::lock_guard lock(mu_);
    CommonPrefix best;
    for (const auto& s : sessions_)
        if (const int c = common_prefix(prompt, s->chat->document_ids()); s->scope == scope && c > best.common) {
            best.held = s;
            best.common = c;
        }
    for (const auto& e : evicted_ids_)
        if (const int c = common_prefix(prompt, e.ids); e.scope == scope && c > best.common) {  // RAM wins a tie
            best.held = nullptr;
            best.evicted_ids = e.ids;
            best.common = c;
        }
    return best;
}

std::shared_ptr<HeldSession> SessionTable::find_name(const std::string& name) {
    std::lock_guard lock(mu_);
    for (const auto& s : sessions_)
        if (s->name == name) return s;
    return nullptr;
}

void SessionTable::insert(std::shared_ptr<HeldSession> s) {
    std::lock_guard lock(mu_);
    s->last_used = ++clock_;
    sessions_.push_back(std::move(s));
}

bool SessionTable::erase(const std::string& name) {
    std::lock_guard lock(mu_);
    const auto it =
        std::find_if(sessions_.begin(), sessions_.end(), [&](const auto& s) { return s->name == name; });
    if (it == sessions_.end()) return false;
    sessions_.erase(it);
    return true;
}

void SessionTable::touch(HeldSession& s) {
    std::lock_guard lock(mu_);
    s.last_used = ++clock_;
}

void SessionTable::evict(const HeldSession* keep) {
    std::lock_guard lock(mu_);
    for (;;) {
        int64_t total = 0;
        for (const auto& s : sessions_) total += s->bytes();
        if (total <= cap_ && sessions_.size() <= max_) return;
        auto victim = sessions_.end();
        for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
            if (it->get() != keep && (victim == sessions_.end() || (*it)->last_used < (*victim)->last_used))
                victim = it;
        if (victim == sessions_.end()) return;  // only `keep` is left: it stays even above the cap
        spdlog::info("session table: evicting {} ({} document tokens)", (*victim)->name,
                     (*victim)->chat->session().document_tokens());
        const DocumentChat& chat = *(*victim)->chat;
        if (!(*victim)->explicit_document && chat.kv_cache_has(chat.document_ids())) {
            const Evicted e{(*victim)->scope, chat.document_ids()};
            std::erase(evicted_ids_, e);
            evicted_ids_.push_back(e);
            if (evicted_ids_.size() > max_) evicted_ids_.erase(evicted_ids_.begin());
        }
        sessions_.erase(victim);
        ++evicted_;
    }
}

SessionTable::Stats SessionTable::stats() const {
    std::lock_guard lock(mu_);
    Stats st;
    st.sessions = sessions_.size();
    for (const auto& s : sessions_) st.bytes += s->bytes();
    st.evicted = evicted_;
    return st;
}

}  // namespace snapdoc::server
