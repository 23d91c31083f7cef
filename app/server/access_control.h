// Who a request is and what it may reach (docs/server.md, "Who can see what"):
//  - its API key: with keys set, each key is an owner of its own documents and K/V cache files;
//    without keys everything belongs to one anonymous owner ("");
//  - its client, whose held sessions it may reuse: the owner (or, without keys, the address), and
//    the OpenAI `user` field when given; "" for everyone with --share-sessions;
//  - the browser checks: without a key, a Host that is a name this server was not given is refused
//    (DNS rebinding); an Origin other than the server's own is refused unless --cors allows it
//    (text/plain and form posts need no preflight, so any page could post to a local server).
#pragma once

#include <httplib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/server/server_config.h"

namespace snapdoc::server {

// A key's owner id: a hash of the key (never the key itself), so it can be kept and compared.
std::string owner_id_for_key(const std::string& key);

// --api-keys-file: one key per line; blank lines and lines starting with '#' are skipped, spaces
// around a key are trimmed. Throws Error when the file cannot be read, is readable or writable by
// others (chmod 600), holds no key, or a line has spaces inside (a key never has).
std::vector<std::string> read_api_keys_file(const std::filesystem::path& file);

// Whether `host` (an --host value) is only reachable from this machine: 127.x.x.x, ::1, localhost.
bool is_loopback_host(const std::string& host);

class AccessControl {
public:
    explicit AccessControl(const ServerConfig& config);

    // Host and Origin (checked before CORS and the key): writes a 403 and returns true to refuse.
    bool refuse_browser(const httplib::Request& req, httplib::Response& res) const;
    // The key (every route but /health when keys are set): writes a 401 and returns true to refuse.
    bool refuse_key(const httplib::Request& req, httplib::Response& res) const;

    bool keyed() const { return !keys_.empty(); }
    // The owner of the request's key; "" without keys (call after refuse_key said no).
    std::string owner(const httplib::Request& req) const;
    // Whose held sessions the request may reuse ("" with --share-sessions). `body`: the parsed JSON
    // body, when there is one (its "user" field).
    std::string session_scope(const httplib::Request& req, const nlohmann::json* body) const;

private:
    struct Key {
        std::string key, owner;
    };
    const Key* find_key(const httplib::Request& req) const;
    bool host_allowed(const std::string& host_header) const;
    bool origin_allowed(const std::string& origin, const std::string& host_header) const;

    std::vector<Key> keys_;
    std::vector<std::string> hosts_;  // lower case: localhost, --host, --allow-host
    bool any_host_ = false;           // --allow-host '*'
    std::string cors_;
    bool share_sessions_;
};

}  // namespace snapdoc::server
