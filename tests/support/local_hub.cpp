#include "tests/support/local_hub.h"

#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "app/hub/sha256.h"

namespace fs = std::filesystem;

namespace snapdoc::testing {

namespace {

struct HostedFile {
    std::shared_ptr<const std::string> bytes;  // in memory, or...
    fs::path source;                           // ...read from disk per request
    int64_t size = 0;
    std::string sha256;
};

// Per-response fault decisions, taken when a CDN request starts (counted faults are used up).
struct ResponseFaults {
    int64_t cut_at = -1;
    int64_t stall_at = -1;
    double stall_seconds = 0;
    int64_t bytes_per_second = 0;
};

bool read_range(const HostedFile& f, int64_t offset, std::size_t n, std::string& out) {
    if (f.bytes) {
        out.assign(f.bytes->data() + offset, n);
        return true;
    }
    const int fd = ::open(f.source.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    out.resize(n);
    const ssize_t got = ::pread(fd, out.data(), n, offset);
    ::close(fd);
    return got == static_cast<ssize_t>(n);
}

// "bytes=N-" or "bytes=N-M"; false when absent or not a single range.
bool parse_range(const std::string& v, int64_t size, int64_t* first, int64_t* last) {
    long long a = -1, b = -1;
    if (v.rfind("bytes=", 0) != 0 || v.find(',') != std::string::npos) return false;
    const int n = std::sscanf(v.c_str() + 6, "%lld-%lld", &a, &b);
    if (n < 1 || a < 0) return false;
    *first = a;
    *last = n == 2 ? std::min<int64_t>(b, size - 1) : size - 1;
    return true;
}

std::string git_like_oid(const std::string& seed) {
    return hub::sha256_hex("blob " + seed).substr(0, 40);
}

}  // namespace

struct LocalHub::Impl {
    httplib::Server server;
    std::thread thread;
    int port = 0;
    std::atomic<bool> stopping{false};
    mutable std::mutex mu;
    std::map<std::string, std::map<std::string, HostedFile>> repos;
    std::map<std::string, std::string> gated;  // repo -> token
    HubFaults faults;
    HubStats stats;
    std::string cdn_host;
    int etag_generation = 0;

    // 401/403 for a gated repo; false when the request may go on.
    bool refuse_gated(const std::string& repo, const httplib::Request& req, httplib::Response& res) {
        std::string token;
        {
            std::lock_guard<std::mutex> lock(mu);
            stats.authorization_seen.push_back(req.get_header_value("Authorization"));
            const auto it = gated.find(repo);
            if (it == gated.end()) return false;
            token = it->second;
        }
        const std::string auth = req.get_header_value("Authorization");
        if (auth == "Bearer " + token) return false;
        res.status = auth.empty() ? 401 : 403;
        res.set_content(
            auth.empty()
                ? R"({"error":"Access to model )" + repo +
                      R"( is restricted. You must have access to it and be authenticated to access it. Please log in."})"
                : R"({"error":"Access to model )" + repo +
                      R"( is restricted and you are not in the authorized list."})",
            "application/json");
        return true;
    }

    std::string etag_of(const HostedFile& f) const {
        return "\"" + f.sha256 + (etag_generation ? "-" + std::to_string(etag_generation) : "") + "\"";
    }

    void tree(const httplib::Request& req, httplib::Response& res) {
        const std::string repo = req.matches[1].str() + "/" + req.matches[2].str();
        if (refuse_gated(repo, req, res)) return;
        std::lock_guard<std::mutex> lock(mu);
        ++stats.tree_requests;
        const auto it = repos.find(repo);
        if (it == repos.end()) {
            res.status = 404;
            res.set_content(R"({"error":"Repository not found"})", "application/json");
            return;
        }
        if (faults.broken_tree_json) {
            res.set_content(R"([{"type":"file","path":"x.gguf","si)", "application/json");
            return;
        }
        nlohmann::json arr = nlohmann::json::array();
        std::map<std::string, bool> dirs;
        for (const auto& [path, f] : it->second) {
            for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
                dirs[path.substr(0, slash)] = true;
            const std::string sha = faults.wrong_sha256 ? hub::sha256_hex(f.sha256) : f.sha256;
            nlohmann::json entry = {{"type", "file"}, {"oid", git_like_oid(path + f.sha256)}, {"size", f.size},
                                    {"path", path}};
            if (!faults.no_sha256) entry["lfs"] = {{"oid", sha}, {"size", f.size}, {"pointerSize", 134}};
            arr.push_back(std::move(entry));
        }
        for (const auto& [d, _] : dirs)
            arr.push_back({{"type", "directory"}, {"oid", git_like_oid(d)}, {"size", 0}, {"path", d}});
        if (faults.tree_page_size > 0) {
            // As the hub pages: a cursor in the query, the next page's absolute URL in a Link header.
            const std::size_t page = static_cast<std::size_t>(faults.tree_page_size);
            const std::size_t from = req.has_param("cursor") ? std::stoul(req.get_param_value("cursor")) : 0;
            nlohmann::json part = nlohmann::json::array();
            for (std::size_t i = from; i < arr.size() && i < from + page; ++i) part.push_back(arr[i]);
            const std::size_t next = faults.tree_link_loops ? 0 : from + page;
            if (faults.tree_link_loops || next < arr.size())
                res.set_header("Link", "<http://" +
                                           (faults.tree_next_host.empty() ? req.get_header_value("Host")
                                                                          : faults.tree_next_host) +
                                           req.path +
                                           "?recursive=true&cursor=" + std::to_string(next) + ">; rel=\"next\"");
            arr = std::move(part);
        }
        res.set_content(arr.dump(), "application/json");
    }

    void resolve(const httplib::Request& req, httplib::Response& res) {
        const std::string repo = req.matches[1].str() + "/" + req.matches[2].str();
        const std::string file = req.matches[4].str();
        if (refuse_gated(repo, req, res)) return;
        std::lock_guard<std::mutex> lock(mu);
        ++stats.resolve_requests;
        if (faults.rotate_etag) ++etag_generation;
        const auto r = repos.find(repo);
        const auto f = r == repos.end() ? decltype(r->second.end()){} : r->second.find(file);
        if (r == repos.end() || f == r->second.end()) {
            res.status = 404;
            res.set_header("X-Error-Code", r == repos.end() ? "RepoNotFound" : "EntryNotFound");
            res.set_content(R"({"error":"Entry not found"})", "application/json");
            return;
        }
        res.set_header("X-Linked-Etag", etag_of(f->second));
        res.set_header("X-Linked-Size", std::to_string(f->second.size));
        res.set_header("X-Repo-Commit", git_like_oid(repo));
        res.set_header("ETag", "\"" + git_like_oid(file) + "\"");
        const std::string base = cdn_host.empty() ? "" : "http://" + cdn_host + ":" + std::to_string(port);
        res.set_redirect(base + "/cdn/" + repo + "/" + file, 302);
    }

    ResponseFaults take_faults() {
        ResponseFaults rf;
        if (faults.cut_times > 0) {
            --faults.cut_times;
            rf.cut_at = faults.cut_at_byte;
        }
        if (faults.stall_times > 0) {
            --faults.stall_times;
            rf.stall_at = faults.stall_at_byte;
            rf.stall_seconds = faults.stall_seconds;
        }
        rf.bytes_per_second = faults.bytes_per_second;
        return rf;
    }

    // Sleeps in small slices so stop() ends a stall at once; false when stopping.
    bool sleep_for(double seconds) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < until) {
            if (stopping.load()) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return !stopping.load();
    }

    void cdn(const httplib::Request& req, httplib::Response& res) {
        const std::string repo = req.matches[1].str() + "/" + req.matches[2].str();
        const std::string file = req.matches[3].str();
        HostedFile f;
        ResponseFaults rf;
        bool ignore_range = false;
        std::string etag;
        {
            std::lock_guard<std::mutex> lock(mu);
            ++stats.cdn_requests;
            stats.cdn_authorization_seen.push_back(req.get_header_value("Authorization"));
            if (req.has_header("Range")) ++stats.range_requests;
            const auto r = repos.find(repo);
            if (r == repos.end() || !r->second.count(file)) {
                res.status = 404;
                res.set_content("not found", "text/plain");
                return;
            }
            f = r->second.at(file);
            etag = etag_of(f);
            if (faults.status_times > 0) {
                --faults.status_times;
                res.status = faults.status_code;
                res.set_content("injected failure", "text/plain");
                return;
            }
            rf = take_faults();
            ignore_range = faults.ignore_range;
        }
        // We answer Range ourselves (to be able to ignore it), so httplib must not apply it too.
        // The Request is httplib's own non-const object, handed to us as const.
        auto& ranges = const_cast<httplib::Request&>(req).ranges;
        ranges.clear();
        int64_t first = 0, last = f.size - 1;
        res.set_header("ETag", etag);
        res.set_header("Accept-Ranges", "bytes");
        if (!ignore_range && req.has_header("Range") &&
            parse_range(req.get_header_value("Range"), f.size, &first, &last)) {
            if (first >= f.size) {
                res.status = 416;
                res.set_header("Content-Range", "bytes */" + std::to_string(f.size));
                return;
            }
            res.status = 206;
            res.set_header("Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) +
                                                "/" + std::to_string(f.size));
        } else {
            first = 0;
            last = f.size - 1;
            res.status = 200;
        }
        const int64_t length = last - first + 1;
        auto sent = std::make_shared<int64_t>(0);
        auto start =
            std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
        res.set_content_provider(
            static_cast<size_t>(length), "application/octet-stream",
            [this, f, rf, first, sent, start](size_t offset, size_t n, httplib::DataSink& sink) {
                // One chunk per call; httplib calls again until `length` bytes are written.
                int64_t chunk = std::min<int64_t>(static_cast<int64_t>(n), 256 * 1024);
                if (rf.bytes_per_second > 0)
                    chunk = std::min<int64_t>(chunk, std::max<int64_t>(rf.bytes_per_second / 20, 1));
                const int64_t pos = static_cast<int64_t>(offset);
                if (rf.cut_at >= 0 && pos >= rf.cut_at) return false;  // drop the connection
                if (rf.cut_at >= 0) chunk = std::min(chunk, rf.cut_at - pos);
                if (rf.stall_at >= 0 && pos < rf.stall_at) chunk = std::min(chunk, rf.stall_at - pos);
                if (rf.stall_at >= 0 && pos == rf.stall_at && *sent == pos) {
                    if (!sleep_for(rf.stall_seconds)) return false;
                }
                std::string data;
                if (!read_range(f, first + pos, static_cast<size_t>(chunk), data)) return false;
                if (!sink.write(data.data(), data.size())) return false;
                *sent = pos + chunk;
                {
                    std::lock_guard<std::mutex> lock(mu);
                    stats.body_bytes_sent += chunk;
                }
                if (rf.bytes_per_second > 0) {
                    const double due = static_cast<double>(*sent) / static_cast<double>(rf.bytes_per_second);
                    const double elapsed =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count();
                    if (due > elapsed && !sleep_for(due - elapsed)) return false;
                }
                return true;
            });
    }
};

LocalHub::LocalHub() : impl_(std::make_unique<Impl>()) {
    Impl& im = *impl_;
    const std::string seg = "([A-Za-z0-9._-]+)";
    im.server.Get("/api/models/" + seg + "/" + seg + "/tree/([^?]+)",
                  [&im](const httplib::Request& q, httplib::Response& r) { im.tree(q, r); });
    im.server.Get("/" + seg + "/" + seg + "/resolve/([^/]+)/(.+)",
                  [&im](const httplib::Request& q, httplib::Response& r) { im.resolve(q, r); });
    im.server.Get("/cdn/" + seg + "/" + seg + "/(.+)",
                  [&im](const httplib::Request& q, httplib::Response& r) { im.cdn(q, r); });
    im.server.set_keep_alive_timeout(2);
    im.port = im.server.bind_to_any_port("127.0.0.1");
    if (im.port <= 0) throw std::runtime_error("LocalHub: cannot bind a port on 127.0.0.1");
    im.thread = std::thread([&im] { im.server.listen_after_bind(); });
    for (int i = 0; i < 500 && !im.server.is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

LocalHub::~LocalHub() {
    stop();
}

void LocalHub::stop() {
    impl_->stopping.store(true);
    impl_->server.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

int LocalHub::port() const {
    return impl_->port;
}
std::string LocalHub::endpoint() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void LocalHub::add_file(const std::string& repo, const std::string& path, std::string bytes) {
    HostedFile f;
    f.size = static_cast<int64_t>(bytes.size());
    f.sha256 = hub::sha256_hex(bytes);
    f.bytes = std::make_shared<const std::string>(std::move(bytes));
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->repos[repo][path] = std::move(f);
}

void LocalHub::add_file_from_disk(const std::string& repo, const std::string& path, const fs::path& source) {
    HostedFile f;
    f.source = source;
    f.size = static_cast<int64_t>(fs::file_size(source));
    hub::Sha256 h;
    hub::sha256_update_from_file(h, source);
    f.sha256 = h.hex();
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->repos[repo][path] = std::move(f);
}

void LocalHub::add_folder(const fs::path& root) {
    for (const auto& owner : fs::directory_iterator(root)) {
        if (!owner.is_directory()) continue;
        for (const auto& name : fs::directory_iterator(owner.path())) {
            if (!name.is_directory()) continue;
            const std::string repo = owner.path().filename().string() + "/" + name.path().filename().string();
            for (const auto& e : fs::recursive_directory_iterator(name.path()))
                if (e.is_regular_file())
                    add_file_from_disk(repo, fs::relative(e.path(), name.path()).generic_string(), e.path());
        }
    }
}

void LocalHub::set_gated(const std::string& repo, const std::string& token) {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->gated[repo] = token;
}

void LocalHub::set_cdn_host(const std::string& host) {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->cdn_host = host;
}

void LocalHub::set_faults(const HubFaults& faults) {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->faults = faults;
}

HubFaults LocalHub::faults() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->faults;
}

HubStats LocalHub::stats() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->stats;
}

std::string generated_bytes(std::size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

}  // namespace snapdoc::testing
