// A stand-in for the Hugging Face hub on 127.0.0.1 (cpp-httplib), for the download tests, the CLI
// tests, the app's "Get models" tests and screenshots (snapdoc-local-hub serves a folder with it).
//
// Routes, as the real hub answers them:
//   GET /api/models/{owner}/{name}/tree/{rev}[?recursive=...]  JSON array of {type, path, size, oid,
//                                                              lfs: {oid: sha256, size}}; paged with
//                                                              ?cursor= and Link: <...>; rel="next"
//                                                              when HubFaults::tree_page_size is set
//   GET|HEAD /{owner}/{name}/resolve/{rev}/{file}  302 to /cdn/{sha256}?repo=..&file=.. with
//                                                  X-Linked-Etag, X-Linked-Size, X-Repo-Commit
//   GET|HEAD /cdn/...                              the bytes: ETag, Accept-Ranges, Content-Range/206
// Any revision name is accepted (the hub's files are one snapshot).
//
// Faults are set on the running server (thread-safe) and apply to the following CDN requests;
// counted faults (`times`) are used up one per request.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace snapdoc::testing {

struct HubFaults {
    int64_t cut_at_byte = -1;  // close the connection after this many body bytes of a response
    int cut_times = 0;
    int64_t stall_at_byte = -1;  // stop sending for stall_seconds after this many body bytes
    double stall_seconds = 0;
    int stall_times = 0;
    int status_code = 0;            // answer this status (e.g. 503) instead of the file...
    int status_times = 0;           // ...this many times
    bool ignore_range = false;      // answer 200 with the whole file to a Range request
    bool rotate_etag = false;       // a new ETag (and X-Linked-Etag) on every request
    bool wrong_sha256 = false;      // the tree API reports a wrong sha256 for every file
    bool broken_tree_json = false;  // the tree API answers truncated JSON
    int tree_page_size = 0;         // the tree API pages this many entries, with a Link rel="next"; 0 = one page
    bool tree_link_loops = false;   // ...and every page's next link points back at the first page
    int64_t bytes_per_second = 0;   // bandwidth cap per response; 0 = none
    std::string tree_next_host;     // "HOST:PORT" the next links name instead of this hub (another server)
    bool no_sha256 = false;         // list files as plain git blobs: size, no lfs object, no sha256
};

struct HubStats {
    int tree_requests = 0;
    int resolve_requests = 0;
    int cdn_requests = 0;
    int range_requests = 0;                           // CDN requests that carried a Range header
    int64_t body_bytes_sent = 0;                      // CDN body bytes written
    std::vector<std::string> authorization_seen;      // Authorization header of each resolve/tree request
    std::vector<std::string> cdn_authorization_seen;  // ... and of each CDN request
};

class LocalHub {
public:
    LocalHub();  // listens on 127.0.0.1, an ephemeral port, serving from its own thread
    ~LocalHub();
    LocalHub(const LocalHub&) = delete;
    LocalHub& operator=(const LocalHub&) = delete;

    int port() const;
    std::string endpoint() const;  // "http://127.0.0.1:PORT", for HubEndpoint / HF_ENDPOINT

    // Files (thread-safe; may be called while serving). The sha256 is computed once here.
    void add_file(const std::string& repo, const std::string& path, std::string bytes);
    void add_file_from_disk(const std::string& repo, const std::string& path,
                            const std::filesystem::path& source);
    // Every regular file under `root`, as repos root/{owner}/{name}/... (snapdoc-local-hub).
    void add_folder(const std::filesystem::path& root);
    // A gated repo: tree/resolve answer 401 without `Authorization: Bearer TOKEN`, 403 with another.
    void set_gated(const std::string& repo, const std::string& token);

    // Redirect resolve requests to http://HOST:PORT/cdn/... (e.g. "localhost": another host name
    // for the same server, as the real hub sends clients to its CDN's host). Default: a relative
    // Location on this host.
    void set_cdn_host(const std::string& host);

    void set_faults(const HubFaults& faults);
    HubFaults faults() const;
    HubStats stats() const;

    void stop();  // stops serving (also done by the destructor); stalls in progress end at once

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Deterministic pseudo-random bytes (for files that need no real model).
std::string generated_bytes(std::size_t n, uint32_t seed);

}  // namespace snapdoc::testing
