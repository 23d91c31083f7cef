#include "app/server/document_registry.h"

#include <chrono>
#include <random>

namespace snapdoc::server {

std::string DocumentRegistry::add(DocumentInfo info) {
    std::lock_guard lock(mu_);
    // Not guessable across restarts, unique within one.
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    char buf[40];
    std::snprintf(buf, sizeof buf, "doc-%llx%04llx", static_cast<unsigned long long>(rng() & 0xffffffffffull),
                  static_cast<unsigned long long>(++next_ & 0xffff));
    info.id = buf;
    info.created =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    docs_[info.id] = info;
    return info.id;
}

std::optional<DocumentInfo> DocumentRegistry::get(const std::string& id) const {
    std::lock_guard lock(mu_);
    const auto it = docs_.find(id);
    if (it == docs_.end()) return std::nullopt;
    return it->second;
}

bool DocumentRegistry::erase(const std::string& id) {
    std::lock_guard lock(mu_);
    return docs_.erase(id) > 0;
}

std::vector<DocumentInfo> DocumentRegistry::list() const {
    std::lock_guard lock(mu_);
    std::vector<DocumentInfo> out;
    for (const auto& [id, d] : docs_) out.push_back(d);
    return out;
}

nlohmann::json document_json(const DocumentInfo& d) {
    nlohmann::json j = {{"id", d.id},
                        {"object", "document"},
                        {"created", d.created},
                        {"status", d.status},
                        {"tokens", d.tokens},
                        {"progress", d.progress},
                        {"from_kv_cache", d.from_kv_cache},
                        {"prefill_seconds", d.prefill_seconds}};
    if (!d.error.empty()) j["error"] = d.error;
    return j;
}

}  // namespace snapdoc::server
