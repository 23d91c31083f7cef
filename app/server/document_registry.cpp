#include "app/server/document_registry.h"

#include <chrono>
#include <random>

namespace snapdoc::server {

DocumentRegistry::Added DocumentRegistry::add(DocumentInfo info, std::size_t max_per_owner) {
    std::lock_guard lock(mu_);
    std::size_t held = 0;
    for (auto it = docs_.begin(); it != docs_.end();) {
        const DocumentInfo& d = it->second;
        // The pages too: a text upload equal to a PDF's text is not that PDF (its citations have no pages).
        if (d.owner == info.owner && d.text == info.text && d.system_prompt == info.system_prompt &&
            d.page_starts == info.page_starts) {
            if (d.status != "failed") return {d.id, true};
            it = docs_.erase(it);  // failed: the new upload tries again
            continue;
        }
        held += d.owner == info.owner;
        ++it;
    }
    if (held >= max_per_owner) return {};
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
    return {info.id, false};
}

std::optional<DocumentInfo> DocumentRegistry::get(const std::string& id) const {
    std::lock_guard lock(mu_);
    const auto it = docs_.find(id);
    if (it == docs_.end()) return std::nullopt;
    return it->second;
}

std::optional<DocumentInfo> DocumentRegistry::get(const std::string& id, const std::string& owner) const {
    auto d = get(id);
    if (d && d->owner != owner) return std::nullopt;
    return d;
}

bool DocumentRegistry::erase(const std::string& id, const std::string& owner) {
    std::lock_guard lock(mu_);
    const auto it = docs_.find(id);
    if (it == docs_.end() || it->second.owner != owner) return false;
    docs_.erase(it);
    return true;
}

std::vector<DocumentInfo> DocumentRegistry::list(const std::string& owner) const {
    std::lock_guard lock(mu_);
    std::vector<DocumentInfo> out;
    for (const auto& [id, d] : docs_)
        if (d.owner == owner) out.push_back(d);
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
    if (!d.name.empty()) j["name"] = d.name;
    if (!d.error.empty()) j["error"] = d.error;
    return j;
}

}  // namespace snapdoc::server
