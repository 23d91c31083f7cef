// Explicit documents (POST /v1/documents): their text, system prompt and prefill state, readable
// from any HTTP thread while the engine worker prefills them. The K/V itself lives in the session
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
    std::string text;
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
    std::string add(DocumentInfo info);  // assigns and returns the id
    std::optional<DocumentInfo> get(const std::string& id) const;
    template <typename F>
    void update(const std::string& id, F&& f) {
        std::lock_guard lock(mu_);
        if (auto it = docs_.find(id); it != docs_.end()) f(it->second);
    }
    bool erase(const std::string& id);
    std::vector<DocumentInfo> list() const;

private:
    mutable std::mutex mu_;
    std::map<std::string, DocumentInfo> docs_;
    uint64_t next_ = 0;
};

nlohmann::json document_json(const DocumentInfo& d);

}  // namespace snapdoc::server
