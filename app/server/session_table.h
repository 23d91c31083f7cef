// The document sessions held in RAM: each is a DocumentChat whose document part (token ids) is the
// prefix of the prompts it serves. Lookup finds the longest held document part that a prompt starts
// with; a memory cap (and a count cap) evicts the least recently used ones. An evicted session whose
// document was written to the on-disk K/V cache comes back from that file (DocumentChat does that).
// Shared by the engine worker (lookup, insert) and the HTTP threads (DELETE, stats), so it locks.
// Prefix lookups only see the sessions of one client scope (access_control.h): how much of a
// prompt is reused is reported (cached_tokens), so another client's session must not serve it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "app/common/document_pages.h"
#include "app/common/document_set.h"
#include "engine/session/document_chat.h"

namespace snapdoc::server {

struct HeldSession {
    std::string name;  // an explicit document's id, else "auto-N"
    bool explicit_document = false;
    // The client it serves (AccessControl::session_scope); an explicit document's last asker. Read
    // and written by the engine worker only.
    std::string scope;
    std::unique_ptr<DocumentChat> chat;
    // An uploaded PDF's pages, so its citations name them (none for text and automatic sessions).
    CitationPages pages;
    // Several documents in one session (chat with "document_ids"): their ids and titles in order,
    // and which of them (and which page) a citation lies in.
    std::vector<std::string> set_ids, set_names;
    DocumentSetCitations set_sources;
    uint64_t last_used = 0;
    int64_t bytes() const;  // the full K/V store and the kept tail rows
};

class SessionTable {
public:
    SessionTable(int64_t ram_cap_bytes, std::size_t max_sessions) : cap_(ram_cap_bytes), max_(max_sessions) {}

    // The held session with the longest document part that is a proper prefix of `prompt` (at
    // least one token must follow it), or nullptr.
    std::shared_ptr<HeldSession> find_prefix(std::span<const int32_t> prompt, const std::string& scope);
    // The document part (held in RAM, or evicted with a K/V cache file) sharing the most leading
    // tokens with `prompt`: partial prefix reuse starts from it (DocumentChat::load_document_tokens_from).
    struct CommonPrefix {
        std::shared_ptr<HeldSession> held;  // a session in RAM, or else
        std::vector<int32_t> evicted_ids;   // an evicted one's document part (restored from its file)
        int common = 0;                     // leading tokens it shares with the prompt
    };
    CommonPrefix longest_common_prefix(std::span<const int32_t> prompt, const std::string& scope) const;
    std::shared_ptr<HeldSession> find_name(const std::string& name);
    void insert(std::shared_ptr<HeldSession> s);
    bool erase(const std::string& name);
    void touch(HeldSession& s);
    // Drops least recently used sessions (never `keep`) until the table fits its caps.
    void evict(const HeldSession* keep);

    struct Stats {
        std::size_t sessions = 0;
        int64_t bytes = 0;
        int64_t evicted = 0;
    };
    Stats stats() const;
    int64_t cap_bytes() const { return cap_; }

private:
    mutable std::mutex mu_;
    std::vector<std::shared_ptr<HeldSession>> sessions_;
    // Document parts of evicted automatic sessions whose K/V cache file was there (newest last,
    // at most max_ of them): what longest_common_prefix looks at beyond RAM.
    struct Evicted {
        std::string scope;
        std::vector<int32_t> ids;
        bool operator==(const Evicted&) const = default;
    };
    std::vector<Evicted> evicted_ids_;
    int64_t cap_;
    std::size_t max_;
    uint64_t clock_ = 0;
    int64_t evicted_ = 0;
};

}  // namespace snapdoc::server
