#include "app/remote/remote_documents.h"

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/remote/remote_http.h"
#include "engine/common/error.h"

namespace snapdoc::remote {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

json parse_document(const std::string& url, const HttpReply& r) {
    const json j = json::parse(r.body, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string())
        throw Error(url + ": the answer is not a document (no \"id\")");
    return j;
}

}  // namespace

RemoteDocument upload_document(const RemoteEndpoint& ep, const std::string& text, const std::string& system,
                               const std::function<void(double)>& on_progress, const std::atomic<bool>* cancel,
                               const std::string& name) {
    const std::string url = ep.v1("/documents");
    json body = {{"text", text}};
    if (!system.empty()) body["system"] = system;
    if (!name.empty()) body["name"] = name;  // its title among several (older servers ignore it)
    const HttpReply posted = http_post_json(ep, url, body, /*timed=*/false);
    if (!posted.ok()) throw_http_error(url, posted, !ep.api_key.empty());
    json doc = parse_document(url, posted);
    const std::string id = doc["id"].get<std::string>();
    const std::string doc_url = url + "/" + id;
    double last_progress = -1;
    auto last_change = Clock::now();
    // Bounded: the loop ends when the document is ready or failed, or when the server's progress has
    // not moved for the stall timeout.
    for (;;) {
        const std::string status = doc.value("status", "");
        if (status == "ready") break;
        if (status == "failed")
            throw Error("the server could not prefill the document: " + doc.value("error", std::string("(no reason given)")));
        const double progress = doc.value("progress", 0.0);
        if (progress != last_progress) {
            last_progress = progress;
            last_change = Clock::now();
            if (on_progress) on_progress(progress);
        } else if (Clock::now() - last_change > std::chrono::milliseconds(ep.stall_timeout_ms)) {
            throw Error(doc_url + ": the document's prefill made no progress for " +
                        std::to_string((ep.stall_timeout_ms + 999) / 1000) + " s (status " + status + ")");
        }
        if (cancel && cancel->load()) throw Cancelled();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const HttpReply r = http_get(ep, doc_url);
        if (!r.ok()) throw_http_error(doc_url, r, !ep.api_key.empty());
        doc = parse_document(doc_url, r);
    }
    if (on_progress && last_progress < 1.0) on_progress(1.0);
    RemoteDocument out;
    out.id = id;
    out.tokens = doc.value("tokens", int64_t{0});
    out.from_kv_cache = doc.value("from_kv_cache", false);
    out.prefill_seconds = doc.value("prefill_seconds", 0.0);
    return out;
}

}  // namespace snapdoc::remote
