#include "app/remote/remote_endpoint.h"

#include <algorithm>
#include <cctype>

#include "engine/common/error.h"

namespace snapdoc::remote {

std::string RemoteEndpoint::v1(std::string_view path) const {
    return root + "/v1" + std::string(path);
}

std::string RemoteEndpoint::at(std::string_view path) const {
    return root + std::string(path);
}

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    return true;
}

}  // namespace

std::string normalize_base_url(std::string_view url) {
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.front()))) url.remove_prefix(1);
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back()))) url.remove_suffix(1);
    if (url.empty()) throw Error("the remote URL is empty (give e.g. http://gpu-box:8000/v1)");
    std::string_view scheme;
    if (starts_with_ci(url, "http://"))
        scheme = "http://";
    else if (starts_with_ci(url, "https://"))
        scheme = "https://";
    else
        throw Error("the remote URL '" + std::string(url) +
                    "' must start with http:// or https:// (e.g. http://gpu-box:8000/v1)");
    std::string_view rest = url.substr(scheme.size());
    if (rest.find_first_of("?#") != std::string_view::npos)
        throw Error("the remote URL '" + std::string(url) + "' must not have a query or fragment");
    if (rest.find_first_of(" \t\r\n") != std::string_view::npos)
        throw Error("the remote URL '" + std::string(url) + "' has spaces in it");
    while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    const std::size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (host.empty() || host.front() == ':' || host.front() == '@')
        throw Error("the remote URL '" + std::string(url) + "' has no host");
    // The OpenAI routes are appended as /v1/...: a URL given with its /v1 (as OpenAI clients take
    // it) or without (as llama-server's and Ollama's docs give it) names the same server.
    if (slash != std::string_view::npos) {
        std::string_view path = rest.substr(slash);
        if (path.size() >= 3 && starts_with_ci(path.substr(path.size() - 3), "/v1")) path.remove_suffix(3);
        while (!path.empty() && path.back() == '/') path.remove_suffix(1);
        rest = rest.substr(0, slash + path.size());
    }
    std::string out(scheme);
    out += rest;
    return out;
}

}  // namespace snapdoc::remote
