// GET /v1/documents/{id}/events: a document's prefill as server-sent events, so that a client
// uploading a 100K-token document sees it move instead of a silent connection (issue 40 item 2):
//   event: progress   data: the document object (status, progress 0..1, tokens), when it changes
//   : ping            a comment line whenever nothing was written for the ping interval, which
//                     keeps proxies and clients from timing the connection out, and finds a
//                     client that left
//   event: ready | failed   data: the document object, then the stream ends
// A document deleted meanwhile ends the stream with `event: failed` and error "deleted". Every
// wait is bounded (a poll of the registry every 100 ms); a stopping server ends the stream.
#pragma once

#include <httplib.h>

#include <atomic>
#include <string>

#include "app/server/document_registry.h"

namespace snapdoc::server {

// `id` must be `owner`'s document (the route answers 404 otherwise, before calling this).
void stream_document_events(httplib::Response& res, const DocumentRegistry& documents, const std::string& id,
                            const std::string& owner, int ping_ms, const std::atomic<bool>& stopping);

}  // namespace snapdoc::server
