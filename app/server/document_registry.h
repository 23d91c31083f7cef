// Explicit documents (POST /v1/documents): their text, system prompt and prefill state, readable
// from any HTTP thread while the engine worker prefills them. Each belongs to an owner (the
// uploading key's id, "" without keys): the routes only reach their own owner's documents, each
// owner holds at most a set number, and an identical upload returns the document already there. The K/V itself lives in the session
// table (or, once evicted, in the on-disk K/V cache, from which the text's document part returns).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace snapdoc::server {

struct DocumentInfo {
    std::string id;
    std::string owner;  // AccessControl::owner of the upload
    // The upload's file name or "name" (its title among several); "" if none given. Not part of a
    // document's identity: an identical upload under another name finds this one, name and all.
    std::string name;
    std::string text;
    std::vector<std::size_t> page_starts;  // a PDF upload's: byte offset in `text` where each page starts
    std::string system_prompt;
    std::string status = "queued";  // queued | prefilling | ready | failed
    int tokens = 0;                 // of the document part (known before the prefill)
    double progress = 0;            // prefill work done, 0..1
    bool from_kv_cache = false;
    double prefill_seconds = 0;
    std::string error;
    int64_t created = 0;
};

class DocumentRegistry {
public:
    // Adds `info` for info.owner and assigns its id, or finds the owner's identical document (same
    // text, pages and system prompt, not failed: a failed one is replaced). `id` is empty when the owner
    // holds `max_per_owner` documents already.
    struct Added {
        std::string id;
        bool existing = false;
    };
    Added add(DocumentInfo info, std::size_t max_per_owner);
    std::optional<DocumentInfo> get(const std::string& id) const;  // any owner's (the engine worker)
    std::optional<DocumentInfo> get(const std::string& id, const std::string& owner) const;
    template <typename F>
    void update(const std::string& id, F&& f) {
        std::lock_guard lock(mu_);
        if (auto it = docs_.find(id); it != docs_.end()) f(it->second);
    }
    bool erase(const std::string& id, const std::string& owner);
    std::vector<DocumentInfo> list(const std::string& owner) const;

private:
    mutable std::mutex mu_;
    std::map<std::string, DocumentInfo> docs_;
    uint64_t next_ = 0;
};

nlohmann::json document_json(const DocumentInfo& d);

}  // namespace snapdoc::server
