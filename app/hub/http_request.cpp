#include "app/hub/http_request.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "engine/common/error.h"

namespace snapdoc::hub {

void curl_global_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlHandle::CurlHandle() {
    curl_global_once();
    h_ = curl_easy_init();
    if (!h_) throw Error("libcurl could not create a transfer handle");
}

CurlHandle::~CurlHandle() {
    curl_easy_cleanup(h_);
    curl_slist_free_all(headers_);
}

void CurlHandle::add_header(const std::string& line) {
    headers_ = curl_slist_append(headers_, line.c_str());
}

void CurlHandle::apply_headers() {
    curl_easy_setopt(h_, CURLOPT_HTTPHEADER, headers_);
}

void apply_common_options(CurlHandle& c, const std::string& url, const HubEndpoint& ep,
                          long connect_timeout_ms) {
    CURL* h = c.get();
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_USERAGENT, "snapdoc/0.1 (libcurl)");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // worker threads: no SIGALRM for DNS timeouts
    // Only to the configured endpoint's origin: a URL from a server (a listing's Link: next) may
    // name any host, and the token must not follow it there.
    if (!ep.token.empty() && same_origin(url, ep.base_url)) c.add_header("Authorization: Bearer " + ep.token);
    c.apply_headers();
}

namespace {

// scheme://host:port of `url`, lower-cased; "" when it does not parse.
std::string origin_of(const std::string& url) {
    CURLU* u = curl_url();
    if (!u) return "";
    std::string out;
    if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
        char *scheme = nullptr, *host = nullptr, *port = nullptr;
        if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
            out = std::string(scheme) + "://" + host + ":" + port;
        curl_free(scheme);
        curl_free(host);
        curl_free(port);
    }
    curl_url_cleanup(u);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return out;
}

}  // namespace

bool same_origin(const std::string& url, const std::string& base_url) {
    const std::string a = origin_of(url);
    return !a.empty() && a == origin_of(base_url);
}

std::string ResponseHeaders::get(const std::string& lower_name) const {
    const auto it = fields.find(lower_name);
    return it == fields.end() ? std::string() : it->second;
}

void ResponseHeaders::on_line(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
    if (line.rfind("HTTP/", 0) == 0) {  // a new response of the redirect chain starts
        fields.clear();
        const auto sp = line.find(' ');
        status = sp == std::string_view::npos ? 0 : std::atol(std::string(line.substr(sp + 1, 3)).c_str());
        return;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    fields[name] = std::string(value);
    if (name == "x-linked-etag" && linked_etag.empty()) linked_etag = std::string(value);
    if (name == "x-linked-size" && linked_size < 0) linked_size = std::atoll(std::string(value).c_str());
}

size_t collect_header(char* data, size_t size, size_t n, void* headers) {
    static_cast<ResponseHeaders*>(headers)->on_line(std::string_view(data, size * n));
    return size * n;
}

namespace {

struct BodySink {
    std::string* body;
    int64_t max_bytes;
    bool too_big = false;
    bool keep_prefix = false;  // a range request: a server that sends more keeps its first max_bytes
};

size_t collect_body(char* data, size_t size, size_t n, void* user) {
    auto* sink = static_cast<BodySink*>(user);
    if (static_cast<int64_t>(sink->body->size() + size * n) > sink->max_bytes) {
        if (sink->keep_prefix) {
            sink->body->append(data, static_cast<std::size_t>(sink->max_bytes) - sink->body->size());
            return 0;  // stops the transfer: what was asked for is here
        }
        sink->too_big = true;
        return 0;
    }
    sink->body->append(data, size * n);
    return size * n;
}

int check_cancel(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    const auto* cancel = static_cast<const std::atomic<bool>*>(flag);
    return cancel && cancel->load() ? 1 : 0;
}

HttpResponse http_get_impl(const std::string& url, const HubEndpoint& ep, std::string_view what,
                           int64_t max_body_bytes, bool prefix, const std::atomic<bool>* cancel) {
    CurlHandle c;
    apply_common_options(c, url, ep, 15000);
    HttpResponse r;
    BodySink sink{&r.body, max_body_bytes, false, prefix};
    CURL* h = c.get();
    const std::string range = "0-" + std::to_string(max_body_bytes - 1);
    if (prefix) curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &r.headers);
    // The progress callback runs at least once a second and on every chunk; with a 60 s ceiling a
    // listing that hangs cannot hang the caller.
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, check_cancel);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(cancel));
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 60000L);
    CURLcode rc = curl_easy_perform(h);
    if (rc == CURLE_ABORTED_BY_CALLBACK) throw Cancelled();
    if (prefix && rc == CURLE_WRITE_ERROR && static_cast<int64_t>(r.body.size()) == max_body_bytes) rc = CURLE_OK;
    if (sink.too_big)
        throw Error(std::string(what) + ": the answer from " + url + " is larger than " +
                    std::to_string(max_body_bytes) + " bytes");
    if (rc != CURLE_OK) throw Error(std::string(what) + ": " + url + ": " + curl_easy_strerror(rc));
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    return r;
}

}  // namespace

HttpResponse http_get(const std::string& url, const HubEndpoint& ep, std::string_view what,
                      int64_t max_body_bytes, const std::atomic<bool>* cancel) {
    return http_get_impl(url, ep, what, max_body_bytes, false, cancel);
}

HttpResponse http_get_prefix(const std::string& url, const HubEndpoint& ep, std::string_view what, int64_t bytes,
                             const std::atomic<bool>* cancel) {
    return http_get_impl(url, ep, what, bytes, true, cancel);
}

std::string http_status_message(long status, const HubEndpoint& ep, std::string_view repo,
                                std::string_view what) {
    const std::string page = repo_page_url(ep, repo);
    const std::string w(what);
    if (status == 401)
        return w + ": the hub refused access to " + std::string(repo) +
               (ep.token.empty()
                    ? " without a token (401): the repository is gated or private (or does not exist). "
                      "Set HF_TOKEN (or the token in Settings) to a token of an account with access, "
                      "after accepting the model's terms on " +
                          page
                    : " with the given token (401): the token is not valid. Check HF_TOKEN (or the "
                      "token in Settings) and your access on " +
                          page);
    if (status == 403)
        return w + ": the token has no access to " + std::string(repo) +
               " (403): accept the licence or request access on " + page + ", then retry";
    if (status == 404)
        return w + ": not found on the hub (404): check the repository id, revision and file name (" + page +
               ")";
    if (status == 416) return w + ": the server refused the byte range (416)";
    return w + ": the hub answered HTTP " + std::to_string(status);
}

}  // namespace snapdoc::hub
