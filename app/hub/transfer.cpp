#include "app/hub/transfer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "app/hub/http_request.h"
#include "engine/common/error.h"

namespace snapdoc::hub {

void PartWriter::restart_from_zero() {
    if (::ftruncate(fd, 0) != 0)
        throw Error(std::string("cannot truncate the .part file: ") + std::strerror(errno));
    size = 0;
    *hash = Sha256();
}

namespace {

using Clock = std::chrono::steady_clock;

struct State {
    const TransferRequest* req;
    PartWriter* part;
    ResponseHeaders headers;
    int64_t offset_at_start = 0;
    bool checked = false;
    TransferOutcome out;
    bool abort_reason_set = false;
    Clock::time_point last_byte = Clock::now();

    size_t abort(TransferEnd end, std::string detail) {
        out.end = end;
        out.detail = std::move(detail);
        abort_reason_set = true;
        return 0;  // anything but the byte count makes libcurl stop with CURLE_WRITE_ERROR
    }
};

// "bytes 100-199/1000" -> first byte and total (-1 if '*').
bool parse_content_range(const std::string& v, int64_t* first, int64_t* total) {
    long long a = 0, b = 0;
    char tot[32] = {};
    if (std::sscanf(v.c_str(), "bytes %lld-%lld/%31s", &a, &b, tot) != 3) return false;
    *first = a;
    *total = tot[0] == '*' ? -1 : std::atoll(tot);
    return true;
}

// Runs once, when the first body bytes of the final response arrive: the status, the ETag and
// what the server did with our Range decide whether these bytes belong in the .part.
size_t check_response(State& s) {
    s.checked = true;
    const long status = s.headers.status;
    s.out.status = status;
    s.out.etag = !s.headers.linked_etag.empty() ? s.headers.linked_etag : s.headers.get("etag");
    if (status != 200 && status != 206)
        return s.abort(TransferEnd::HttpStatus, "HTTP " + std::to_string(status));
    const TransferRequest& r = *s.req;
    if (!r.expected_etag.empty() && !s.out.etag.empty() && s.out.etag != r.expected_etag)
        return s.abort(TransferEnd::EtagChanged,
                       "the server's ETag changed from " + r.expected_etag + " to " + s.out.etag);
    int64_t total = -1;
    if (status == 206) {
        int64_t first = 0;
        if (!parse_content_range(s.headers.get("content-range"), &first, &total) ||
            first != s.offset_at_start)
            return s.abort(TransferEnd::BadResponse,
                           "the server answered Range bytes=" + std::to_string(s.offset_at_start) +
                               "- with Content-Range '" + s.headers.get("content-range") + "'");
    } else {
        if (s.offset_at_start > 0) {
            // Range ignored: these bytes start at 0. Start the .part over instead of re-requesting.
            s.part->restart_from_zero();
            s.out.restarted_from_zero = true;
        }
        const std::string len = s.headers.get("content-length");
        if (!len.empty()) total = std::atoll(len.c_str());
    }
    // The hub's own X-Linked-Size (on its 302) must agree with the listing too.
    if (r.expected_size >= 0 && s.headers.linked_size >= 0 && s.headers.linked_size != r.expected_size)
        return s.abort(TransferEnd::BadResponse,
                       "the hub says the file has " + std::to_string(s.headers.linked_size) +
                           " bytes (X-Linked-Size) but its listing says " + std::to_string(r.expected_size));
    if (r.expected_size >= 0 && total >= 0 && total != r.expected_size)
        return s.abort(TransferEnd::BadResponse, "the server sends " + std::to_string(total) +
                                                     " bytes but the hub's listing says " +
                                                     std::to_string(r.expected_size));
    return 1;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto& s = *static_cast<State*>(user);
    const size_t bytes = size * n;
    if (!s.checked && check_response(s) == 0) return 0;
    if (s.req->stop && s.req->stop->load()) return s.abort(TransferEnd::Stopped, "stopped");
    if (s.req->expected_size >= 0 && s.part->size + static_cast<int64_t>(bytes) > s.req->expected_size)
        return s.abort(TransferEnd::BadResponse, "the server sends more bytes than the hub's listing says");
    for (size_t done = 0; done < bytes;) {
        const ssize_t w = ::write(s.part->fd, data + done, bytes - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            s.out.errno_value = errno;
            return s.abort(TransferEnd::WriteError, std::strerror(errno));
        }
        done += static_cast<size_t>(w);
    }
    s.part->hash->update(data, bytes);
    s.part->size += static_cast<int64_t>(bytes);
    s.out.bytes_received += static_cast<int64_t>(bytes);
    s.last_byte = Clock::now();
    return bytes;
}

}  // namespace

TransferOutcome run_transfer(CURLM* multi, const TransferRequest& req, PartWriter& part) {
    State s;
    s.req = &req;
    s.part = &part;
    s.offset_at_start = part.size;
    CurlHandle c;
    if (part.size > 0) c.add_header("Range: bytes=" + std::to_string(part.size) + "-");
    apply_common_options(c, req.url, *req.endpoint, static_cast<long>(req.connect_timeout.count()));
    CURL* h = c.get();
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &s.headers);
    // Bigger receive buffer: fewer callbacks (and write() calls) per MB on fast links.
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);

    curl_multi_add_handle(multi, h);
    int running = 1;
    CURLcode result = CURLE_OK;
    bool stopped = false, stalled = false;
    while (running) {
        if (curl_multi_perform(multi, &running) != CURLM_OK) break;
        if (req.on_bytes) req.on_bytes(part.size);
        if (!running) break;
        if (req.stop && req.stop->load()) {
            stopped = true;
            break;
        }
        if (Clock::now() - s.last_byte > req.stall_timeout) {
            stalled = true;
            break;
        }
        curl_multi_poll(multi, nullptr, 0, 100, nullptr);  // curl_multi_wakeup ends it early
    }
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left))
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == h) result = msg->data.result;
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(multi, h);

    TransferOutcome& out = s.out;
    if (!out.status) out.status = status;
    if (stopped) {
        out.end = TransferEnd::Stopped;
    } else if (stalled) {
        out.end = TransferEnd::Stalled;
        out.detail = "no data for " + std::to_string(req.stall_timeout.count() / 1000.0).substr(0, 4) + " s";
    } else if (s.abort_reason_set) {
        // set by the body callback
    } else if (result != CURLE_OK) {
        out.end = TransferEnd::NetworkError;
        out.detail = curl_easy_strerror(result);
    } else if (!s.checked) {
        // No body bytes: an error status, or an empty file.
        s.headers.status = status;
        if (status == 200 || status == 206) {
            if (check_response(s) != 0) out.end = TransferEnd::Complete;
        } else {
            out.end = TransferEnd::HttpStatus;
            out.detail = "HTTP " + std::to_string(status);
        }
    } else {
        out.end = TransferEnd::Complete;
    }
    return out;
}

}  // namespace snapdoc::hub
