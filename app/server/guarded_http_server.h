// cpp-httplib's Server, with its connection handling replaced for hostile networks (issue 39).
// httplib 0.11 (Debian's) serves each connection on one pool thread from its first byte, with a
// per-read timeout only, so clients sending one header byte every few seconds stall every route;
// it takes unlimited header lines, honours Range on any response (each range a copy of the body)
// and listens with a backlog of 5. Here httplib still accepts and parses (process_request), but:
// - a connection waits for its complete head in a HeadGate (no thread; head deadline and size and
//   line limits, 408 / 431), and again between keep-alive requests;
// - complete requests are served on RequestWorkers (fair between client addresses);
// - connections are capped in all and per address (503 at once);
// - Range is ignored (nothing here is a byte range) and a form content type is read as the JSON
//   it is (curl -d), not under httplib's 8 KiB form cap;
// - the backlog is HttpLimits::backlog;
// - stop() ends every wait within a fraction of a second;
// - with use_tls, every connection is TLS: the gate runs the handshake and decrypts the head
//   (TlsSession), so the limits above hold the same over HTTPS (a slow handshake counts as a slow
//   head). The 503 for too many connections is then a plain close: no reply can be sent before a
//   handshake, and the refusal must not cost one.
#pragma once

#include <httplib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "app/server/connection.h"
#include "app/server/head_gate.h"
#include "app/server/http_limits.h"
#include "app/server/request_workers.h"
#include "app/server/tls_context.h"

namespace snapdoc::server {

class GuardedHttpServer : public httplib::Server {
public:
    GuardedHttpServer(HttpLimits limits, int request_threads, int read_timeout_s, int write_timeout_s);
    ~GuardedHttpServer() override;

    // Serve HTTPS with `tls` (call before serve()).
    void use_tls(std::shared_ptr<const TlsContext> tls) { tls_ = std::move(tls); }
    bool tls() const { return tls_ != nullptr; }

    // Call after bind_to_port / bind_to_any_port: sets the listen backlog.
    void apply_backlog();
    // Serves until stop() (blocking), then ends the gate and the request threads. Use this, not
    // listen_after_bind.
    bool serve();

    struct Counts {
        std::size_t open = 0, addresses = 0;
    };
    Counts counts() const;

private:
    // httplib's accept loop hands every new socket here (on its small handoff pool).
    bool process_and_close_socket(socket_t sock) override;
    // On a request thread: one request, then back to the gate (keep-alive) or closed.
    void serve_one(std::unique_ptr<Connection> c);
    // Closes `c` (replying `status` first unless 0) and forgets it in the counts.
    void finish(std::unique_ptr<Connection> c, int status, const std::string& message);

    HttpLimits limits_;
    std::shared_ptr<const TlsContext> tls_;
    int read_timeout_s_, write_timeout_s_;
    std::atomic<bool> stopping_{false};
    mutable std::mutex count_mu_;
    std::size_t open_ = 0;
    std::unordered_map<std::string, std::size_t> per_address_;
    HeadGate gate_;
    RequestWorkers workers_;
};

}  // namespace snapdoc::server
