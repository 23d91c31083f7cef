#include "app/server/access_control.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>

#include "app/server/api_error.h"
#include "engine/common/error.h"
#include "engine/common/trim.h"
#include "engine/kv/checksum64.h"

namespace snapdoc::server {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// Constant-time comparison: a key must not leak through timing.
bool same_key(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    unsigned char d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
    return d == 0;
}

void refuse(httplib::Response& res, int status, const std::string& message, const std::string& code) {
    res.status = status;
    res.set_content(ApiError(status, "invalid_request_error", message, code).body().dump(), "application/json");
}

// The name in a Host header value, without its port: "[::1]:8080" -> "[::1]", "a.b:80" -> "a.b".
std::string host_name(const std::string& host) {
    if (!host.empty() && host[0] == '[') return host.substr(0, host.find(']') + 1);
    if (std::count(host.begin(), host.end(), ':') == 1) return host.substr(0, host.find(':'));
    return host;  // a name without a port, or a bare IPv6 address
}

// An IP literal names the machine itself, never a DNS name that could be rebound to it.
bool ip_literal(const std::string& name) {
    unsigned char buf[16];
    if (name.size() > 2 && name.front() == '[' && name.back() == ']')
        return inet_pton(AF_INET6, name.substr(1, name.size() - 2).c_str(), buf) == 1;
    return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

}  // namespace

std::string owner_id_for_key(const std::string& key) {
    // Two seeded 64-bit digests: never shown to clients, only compared and mixed into K/V cache
    // file keys, so it needs to be stable and distinct, and to keep the key out of memory dumps of
    // documents and out of file names.
    char buf[48];
    std::snprintf(buf, sizeof buf, "key-%016llx%016llx",
                  static_cast<unsigned long long>(checksum64(key.data(), key.size(), 0x736e6170646f6331ull)),
                  static_cast<unsigned long long>(checksum64(key.data(), key.size(), 0x6f776e6572696432ull)));
    return buf;
}

std::vector<std::string> read_api_keys_file(const std::filesystem::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) throw Error("--api-keys-file: cannot read " + file.string());
    if (st.st_mode & (S_IROTH | S_IWOTH))
        throw Error("--api-keys-file " + file.string() +
                    " can be read or written by every user of this machine: chmod 600 it first");
    std::ifstream in(file);
    if (!in) throw Error("--api-keys-file: cannot read " + file.string());
    std::vector<std::string> keys;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const std::string key(trim_whitespace(line));
        if (key.empty() || key[0] == '#') continue;
        if (key.find_first_of(" \t") != std::string::npos)
            throw Error("--api-keys-file " + file.string() + " line " + std::to_string(n) +
                        ": one key per line (a key has no spaces)");
        keys.push_back(key);
    }
    if (keys.empty()) throw Error("--api-keys-file " + file.string() + " holds no key");
    return keys;
}

bool is_loopback_host(const std::string& host) {
    const std::string h = lower(host);
    if (h == "localhost" || h == "::1" || h == "[::1]") return true;
    in_addr a{};
    return inet_pton(AF_INET, h.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

AccessControl::AccessControl(const ServerConfig& config)
    : cors_(config.cors_origin), share_sessions_(config.share_sessions) {
    for (const std::string& k : config.api_keys)
        if (std::none_of(keys_.begin(), keys_.end(), [&](const Key& e) { return e.key == k; }))
            keys_.push_back({k, owner_id_for_key(k)});
    hosts_ = {"localhost", lower(config.host)};
    for (const std::string& h : config.allowed_hosts) {
        if (h == "*") any_host_ = true;
        hosts_.push_back(lower(host_name(h)));
    }
}

bool AccessControl::host_allowed(const std::string& host_header) const {
    if (any_host_ || host_header.empty()) return true;  // no browser leaves Host out
    const std::string name = lower(host_name(host_header));
    return ip_literal(name) || std::find(hosts_.begin(), hosts_.end(), name) != hosts_.end();
}

bool AccessControl::origin_allowed(const std::string& origin, const std::string& host_header) const {
    if (cors_ == "*" || (!cors_.empty() && origin == cors_)) return true;
    // The server's own pages (served from this Host) are same-origin.
    return !host_header.empty() &&
           (lower(origin) == "http://" + lower(host_header) || lower(origin) == "https://" + lower(host_header));
}

bool AccessControl::refuse_browser(const httplib::Request& req, httplib::Response& res) const {
    const std::string host = req.get_header_value("Host");
    // With a key, a rebound name gets nowhere without it; without one, the name is the only check.
    if (!keyed() && !host_allowed(host)) {
        refuse(res, 403,
               "Host '" + host + "' is not a name of this server; start it with --allow-host " + host_name(host) +
                   " to serve it",
               "host_not_allowed");
        return true;
    }
    if (req.has_header("Origin") && !origin_allowed(req.get_header_value("Origin"), host)) {
        refuse(res, 403,
               "requests from the web origin '" + req.get_header_value("Origin") +
                   "' are not allowed; start the server with --cors ORIGIN to allow them",
               "origin_not_allowed");
        return true;
    }
    return false;
}

const AccessControl::Key* AccessControl::find_key(const httplib::Request& req) const {
    const std::string auth = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (auth.rfind(prefix, 0) != 0) return nullptr;
    const std::string given = auth.substr(prefix.size());
    const Key* found = nullptr;
    for (const Key& k : keys_)  // every key compared: the time does not say which one matched
        if (same_key(given, k.key)) found = &k;
    return found;
}

bool AccessControl::refuse_key(const httplib::Request& req, httplib::Response& res) const {
    if (!keyed() || req.path == "/health" || find_key(req)) return false;
    refuse(res, 401, "missing or wrong API key (Authorization: Bearer KEY)", "invalid_api_key");
    return true;
}

std::string AccessControl::owner(const httplib::Request& req) const {
    const Key* k = find_key(req);
    return k ? k->owner : std::string();
}

std::string AccessControl::session_scope(const httplib::Request& req, const nlohmann::json* body) const {
    if (share_sessions_) return {};
    std::string scope = keyed() ? owner(req) : "addr:" + req.remote_addr;
    if (body && body->is_object())
        if (const auto u = body->find("user"); u != body->end() && u->is_string() && !u->get<std::string>().empty())
            scope += "\x1fuser:" + u->get<std::string>();
    return scope;
}

}  // namespace snapdoc::server
