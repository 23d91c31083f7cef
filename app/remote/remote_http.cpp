#include "app/remote/remote_http.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "app/hub/http_request.h"
#include "engine/common/error.h"
#include "engine/common/message_text.h"

namespace snapdoc::remote {

namespace {

constexpr std::size_t kMaxReplyBytes = 64u << 20;  // a listing or an error object is far smaller

struct Sink {
    const std::function<bool(std::string_view)>* on_bytes = nullptr;  // null: collect
    std::string* body = nullptr;
    long status = 0;
    bool too_big = false;
    bool stopped_by_reader = false;
    std::exception_ptr error;  // thrown by on_bytes: rethrown after libcurl returns
    CURL* handle = nullptr;
    // The stall timeout: the last time a byte went either way. libcurl's own low-speed limit
    // averages over several seconds, so a server that sent a chunk and then went silent would be
    // waited on for longer than asked.
    const std::atomic<bool>* cancel = nullptr;
    std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
    curl_off_t last_uploaded = 0;
    long stall_ms = 0;
    bool stalled = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto& s = *static_cast<Sink*>(user);
    const size_t bytes = size * n;
    s.last_activity = std::chrono::steady_clock::now();
    if (s.status == 0) curl_easy_getinfo(s.handle, CURLINFO_RESPONSE_CODE, &s.status);
    const bool stream = s.on_bytes && s.status >= 200 && s.status < 300;
    if (!stream) {
        if (s.body->size() + bytes > kMaxReplyBytes) {
            s.too_big = true;
            return 0;
        }
        s.body->append(data, bytes);
        return bytes;
    }
    try {
        if (!(*s.on_bytes)(std::string_view(data, bytes))) {
            s.stopped_by_reader = true;
            return 0;
        }
    } catch (...) {
        s.error = std::current_exception();
        return 0;
    }
    return bytes;
}

// Called by libcurl several times a second while a transfer runs (and while it connects).
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t ulnow) {
    auto& s = *static_cast<Sink*>(user);
    if (s.cancel && s.cancel->load()) return 1;
    const auto now = std::chrono::steady_clock::now();
    if (ulnow != s.last_uploaded) {
        s.last_uploaded = ulnow;
        s.last_activity = now;
    }
    if (now - s.last_activity > std::chrono::milliseconds(s.stall_ms)) {
        s.stalled = true;
        return 1;
    }
    return 0;
}

std::string seconds_text(long ms) {
    const long s = (ms + 999) / 1000;
    return std::to_string(s) + " s";
}

// Words for a transfer that failed below HTTP.
std::string network_error_text(const RemoteEndpoint& ep, const std::string& url, CURLcode rc, const char* detail) {
    const std::string curl_words = detail && *detail ? std::string(detail) : curl_easy_strerror(rc);
    switch (rc) {
        case CURLE_COULDNT_RESOLVE_HOST:
            return url + ": the host name does not resolve (" + curl_words + ")";
        case CURLE_COULDNT_CONNECT:
            return url + ": cannot connect (" + curl_words + "): is the server running, and is the URL right?";
        case CURLE_OPERATION_TIMEDOUT:
            return url + ": timed out (" + curl_words + ")";
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
            return url + ": the server's TLS certificate is not trusted (" + curl_words +
                   "): give its CA certificate with --ca-cert FILE, or --insecure to trust it without checking";
        case CURLE_SSL_CONNECT_ERROR:
            return url + ": the TLS handshake failed (" + curl_words + ")";
        case CURLE_GOT_NOTHING:
            return url + ": the server closed the connection without answering";
        case CURLE_PARTIAL_FILE:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
            return url + ": the connection was cut before the answer ended (" + curl_words + ")";
        default:
            return url + ": " + curl_words;
    }
}

HttpReply perform(const RemoteEndpoint& ep, const std::string& url, const nlohmann::json* body,
                  const std::function<bool(std::string_view)>* on_bytes, const std::atomic<bool>* cancel,
                  bool timed) {
    hub::CurlHandle c;
    CURL* h = c.get();
    std::string payload;
    if (body) {
        payload = body->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        c.add_header("Content-Type: application/json");
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload.data());
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
    }
    if (on_bytes) c.add_header("Accept: text/event-stream");
    if (!ep.api_key.empty()) c.add_header("Authorization: Bearer " + ep.api_key);
    c.add_header("Expect:");  // no 100-continue round trip before a large document upload
    c.apply_headers();
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_USERAGENT, "snapdoc/0.1 (libcurl)");
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ep.connect_timeout_ms);
    if (timed && !on_bytes) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ep.request_timeout_ms);
    if (!ep.ca_cert_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ep.ca_cert_file.c_str());
    if (ep.insecure_skip_verify) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    HttpReply reply;
    Sink sink;
    sink.on_bytes = on_bytes;
    sink.body = &reply.body;
    sink.handle = h;
    sink.cancel = cancel;
    sink.stall_ms = ep.stall_timeout_ms;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &sink);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    const CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply.status);
    if (sink.error) std::rethrow_exception(sink.error);
    if (rc == CURLE_ABORTED_BY_CALLBACK && sink.stalled)
        throw Error(url + ": the server sent nothing for " + seconds_text(ep.stall_timeout_ms) +
                    " (stall timeout; --stall-timeout SECONDS waits longer)");
    if (rc == CURLE_ABORTED_BY_CALLBACK) throw Cancelled();
    if (sink.stopped_by_reader) return reply;
    if (sink.too_big) throw Error(url + ": the answer is larger than " + std::to_string(kMaxReplyBytes >> 20) + " MiB");
    if (rc != CURLE_OK) throw Error(network_error_text(ep, url, rc, errbuf));
    return reply;
}

}  // namespace

HttpReply http_get(const RemoteEndpoint& ep, const std::string& url) {
    return perform(ep, url, nullptr, nullptr, nullptr, true);
}

HttpReply http_post_json(const RemoteEndpoint& ep, const std::string& url, const nlohmann::json& body, bool timed) {
    return perform(ep, url, &body, nullptr, nullptr, timed);
}

HttpReply http_post_stream(const RemoteEndpoint& ep, const std::string& url, const nlohmann::json& body,
                           const std::function<bool(std::string_view)>& on_bytes,
                           const std::atomic<bool>* cancel) {
    return perform(ep, url, &body, &on_bytes, cancel, false);
}

std::string server_error_text(std::string_view body) {
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object()) {
        if (const auto e = j.find("error"); e != j.end()) {
            if (e->is_string()) return e->get<std::string>();
            if (e->is_object()) {
                if (const auto m = e->find("message"); m != e->end() && m->is_string()) return m->get<std::string>();
            }
        }
        if (const auto m = j.find("message"); m != j.end() && m->is_string()) return m->get<std::string>();
        if (const auto d = j.find("detail"); d != j.end())
            return d->is_string() ? d->get<std::string>() : d->dump();
    }
    std::string_view t = body;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.remove_suffix(1);
    if (t.empty()) return "(no message)";
    return printable_excerpt(t, 400);
}

void throw_http_error(const std::string& url, const HttpReply& reply, bool had_key) {
    std::string msg = url + ": HTTP " + std::to_string(reply.status) + ": " + server_error_text(reply.body);
    if (reply.status == 401 || reply.status == 403)
        msg += had_key ? " (the server refused the API key: check --api-key)"
                       : " (the server wants an API key: give it with --api-key)";
    else if (reply.status == 404 && reply.body.empty())
        msg += " (check the remote URL)";
    throw Error(msg);
}

}  // namespace snapdoc::remote
