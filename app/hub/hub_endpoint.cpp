#include "app/hub/hub_endpoint.h"

#include <cstdlib>

#include "engine/common/error.h"

namespace snapdoc::hub {

namespace {

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

// A repo id part or a path segment: what the hub allows, and nothing that moves up a directory.
bool is_safe_segment(std::string_view s) {
    if (s.empty() || s == "." || s == "..") return false;
    for (char c : s)
        if (c == '/' || c == '\\' || c == '\0') return false;
    return true;
}

// RFC 3986 unreserved characters stay; '/' separates segments; everything else is %XX.
std::string percent_encode_path(std::string_view path) {
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        if (is_name_char(static_cast<char>(c)) || c == '~' || c == '/') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

}  // namespace

HubEndpoint resolve_endpoint(std::string_view endpoint_flag, std::string_view token_flag) {
    HubEndpoint ep;
    std::string base = !endpoint_flag.empty() ? std::string(endpoint_flag) : env_or_empty("HF_ENDPOINT");
    if (base.empty()) base = std::string(kDefaultEndpoint);
    while (!base.empty() && base.back() == '/') base.pop_back();
    if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0)
        throw Error("hub endpoint '" + base + "' must start with http:// or https://");
    ep.base_url = base;
    ep.token = !token_flag.empty() ? std::string(token_flag) : env_or_empty("HF_TOKEN");
    return ep;
}

void check_repo_id(std::string_view repo) {
    const auto slash = repo.find('/');
    const bool ok =
        slash != std::string_view::npos && repo.find('/', slash + 1) == std::string_view::npos && [&] {
            for (std::string_view part : {repo.substr(0, slash), repo.substr(slash + 1)}) {
                if (part.empty() || part.size() > 96 || part.find("..") != std::string_view::npos)
                    return false;
                if (part.front() == '.' || part.front() == '-' || part.back() == '.' || part.back() == '-')
                    return false;
                for (char c : part)
                    if (!is_name_char(c)) return false;
            }
            return true;
        }();
    if (!ok)
        throw Error("'" + std::string(repo) +
                    "' is not a Hugging Face repository id (expected owner/name, e.g. "
                    "Qwen/Qwen2.5-0.5B-Instruct-GGUF)");
}

void check_repo_file_path(std::string_view path) {
    bool ok = !path.empty() && path.front() != '/' && path.size() <= 1024;
    std::size_t start = 0;
    while (ok && start <= path.size()) {
        const auto end = path.find('/', start);
        const auto seg =
            path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        ok = is_safe_segment(seg);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    if (!ok) throw Error("'" + std::string(path) + "' is not a valid file path inside a repository");
}

std::string resolve_url(const HubEndpoint& ep, std::string_view repo, std::string_view revision,
                        std::string_view file) {
    return ep.base_url + "/" + std::string(repo) + "/resolve/" + percent_encode_path(revision) + "/" +
           percent_encode_path(file);
}

std::string tree_url(const HubEndpoint& ep, std::string_view repo, std::string_view revision) {
    return ep.base_url + "/api/models/" + std::string(repo) + "/tree/" + percent_encode_path(revision) +
           "?recursive=true";
}

std::string repo_page_url(const HubEndpoint& ep, std::string_view repo) {
    return ep.base_url + "/" + std::string(repo);
}

}  // namespace snapdoc::hub
