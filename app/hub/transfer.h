// One HTTP attempt of the download engine: GET a resolve URL (following the hub's redirect to its
// CDN) from a byte offset into an open .part file, hashing as bytes arrive, on a curl multi handle
// so pause/cancel (curl_multi_wakeup) and stall detection act within ~100 ms. Retries, backoff and
// verification are the caller's (download.cpp). Internal to app/hub.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "app/hub/hub_endpoint.h"
#include "app/hub/sha256.h"

namespace snapdoc::hub {

// The .part being written: appended to (O_APPEND), so a truncate to 0 restarts it.
struct PartWriter {
    int fd = -1;
    int64_t size = 0;  // bytes in the file (== bytes hashed)
    Sha256* hash = nullptr;
    void restart_from_zero();  // truncate + fresh hash
};

enum class TransferEnd {
    Complete,      // the response body ended normally
    Stopped,       // pause/cancel requested
    Stalled,       // no byte for stall_timeout
    NetworkError,  // connection refused/reset/cut, timeouts, partial bodies (transient)
    HttpStatus,    // a non-2xx final status (status says which)
    EtagChanged,   // the file on the server is not the one the .part holds
    BadResponse,   // Content-Range not starting at our offset, or a size different from the listing
    WriteError,    // writing the .part failed (errno_value says why; ENOSPC = disk full)
};

struct TransferRequest {
    std::string url;
    const HubEndpoint* endpoint = nullptr;
    std::string expected_etag;   // "" = accept any
    int64_t expected_size = -1;  // from the listing; -1 unknown
    std::chrono::milliseconds stall_timeout{20000};
    std::chrono::milliseconds connect_timeout{15000};
    const std::atomic<int>* stop = nullptr;               // nonzero: stop at once
    std::function<void(int64_t bytes_in_part)> on_bytes;  // called from the loop, after each poll
};

struct TransferOutcome {
    TransferEnd end = TransferEnd::NetworkError;
    long status = 0;
    int errno_value = 0;
    std::string detail;  // curl's words or ours
    std::string etag;    // what the server said this time
    int64_t bytes_received = 0;
    bool restarted_from_zero = false;  // the server ignored Range (200); the .part was truncated
};

// `multi` is a long-lived multi handle (the waker); the easy handle is added and removed here.
TransferOutcome run_transfer(CURLM* multi, const TransferRequest& req, PartWriter& part);

}  // namespace snapdoc::hub
