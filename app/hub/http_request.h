// The libcurl settings every hub request shares (user agent, token, redirects, timeouts, proxies
// from the environment) and a small blocking GET for JSON answers. Internal to app/hub.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "app/hub/hub_endpoint.h"

namespace snapdoc::hub {

void curl_global_once();  // curl_global_init, once per process, thread-safe

// Owns an easy handle and its header list.
class CurlHandle {
public:
    CurlHandle();
    ~CurlHandle();
    CurlHandle(const CurlHandle&) = delete;
    CurlHandle& operator=(const CurlHandle&) = delete;
    CURL* get() const { return h_; }
    void add_header(const std::string& line);  // applied by apply_headers()
    void apply_headers();

private:
    CURL* h_ = nullptr;
    curl_slist* headers_ = nullptr;
};

// URL, user agent, Authorization (when the endpoint has a token and `url` is on its origin), redirects (up to 10; libcurl does
// not resend a custom Authorization header to another host), connect timeout, TCP keepalive.
// Proxies: left to libcurl, which reads http_proxy, https_proxy/HTTPS_PROXY, ALL_PROXY and no_proxy.
void apply_common_options(CurlHandle& c, const std::string& url, const HubEndpoint& ep,
                          long connect_timeout_ms);

// Whether `url` is on the same origin as `base_url` (scheme, host and port, the default port of
// the scheme filled in; host compared without case). False when either does not parse. The token
// is only ever sent to the endpoint's own origin (issue 39: a listing's Link header named another).
bool same_origin(const std::string& url, const std::string& base_url);

// Headers of the last response in a redirect chain, names lower-cased. Also keeps the first
// X-Linked-Etag / X-Linked-Size seen (the hub sends them on its 302, not the CDN on its 200).
struct ResponseHeaders {
    long status = 0;
    std::map<std::string, std::string> fields;
    std::string linked_etag;
    int64_t linked_size = -1;
    std::string get(const std::string& lower_name) const;
    void on_line(std::string_view line);  // feed every header line (CURLOPT_HEADERFUNCTION)
};
size_t collect_header(char* data, size_t size, size_t n, void* headers);  // userdata: ResponseHeaders*

struct HttpResponse {
    long status = 0;
    ResponseHeaders headers;
    std::string body;
};
// GET `url`; a body over `max_body_bytes` is an error. `cancel` is checked ~10x a second (throws
// Cancelled). Network failures throw Error("what: <curl's message>").
HttpResponse http_get(const std::string& url, const HubEndpoint& ep, std::string_view what,
                      int64_t max_body_bytes, const std::atomic<bool>* cancel);

// GET the first `bytes` bytes of `url` (a Range request; a server that ignores it and sends the
// whole file is cut off after them): status 206, or 200 with at most `bytes` of body.
HttpResponse http_get_prefix(const std::string& url, const HubEndpoint& ep, std::string_view what, int64_t bytes,
                             const std::atomic<bool>* cancel);

// Words for a refusal by the hub: 401/403 (token / access on the model page), 404, others.
std::string http_status_message(long status, const HubEndpoint& ep, std::string_view repo,
                                std::string_view what);

}  // namespace snapdoc::hub
