// snapdoc-server's document sessions (its extension routes): the document is uploaded once
// (POST /v1/documents), prefilled on the server (GET /v1/documents/{id} until "ready", with
// progress), and every question is then a chat request naming its id.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "app/remote/remote_endpoint.h"

namespace snapdoc::remote {

struct RemoteDocument {
    std::string id;
    int64_t tokens = 0;
    bool from_kv_cache = false;
    double prefill_seconds = 0;
};

// Uploads `text` (with its system prompt) and waits until the server has prefilled it. `on_progress`
// (0..1) is called as the server reports it. Throws Error with the server's words when it refuses
// the document or its prefill fails, and when its progress does not move for the endpoint's stall
// timeout; Cancelled when `cancel` is set (the document stays on the server: an identical
// upload later finds it instead of prefilling it again). `name`: its title when it is one of several
// documents in a chat ("document_ids"), and its citations' "document".
RemoteDocument upload_document(const RemoteEndpoint& ep, const std::string& text, const std::string& system,
                               const std::function<void(double)>& on_progress, const std::atomic<bool>* cancel,
                               const std::string& name = {});

}  // namespace snapdoc::remote
