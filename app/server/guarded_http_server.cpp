#include "app/server/guarded_http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "app/server/activity_log.h"
#include "app/server/connection_stream.h"
#include "app/server/early_reply.h"
#include "app/server/socket_address.h"

namespace snapdoc::server {

namespace {

// When this request thread began the request it is serving: httplib's logger, which writes the
// request line, runs on the same thread after the response (a streamed one included) is written.
thread_local SteadyClock::time_point t_request_started;

// Runs before routing, on the parsed request.
void neutralise(httplib::Request& req) {
    // Nothing snapdoc serves is a byte range, and httplib builds one copy of the body per range
    // (2,500 ranges on a large answer exhausted memory).
    req.ranges.clear();
    // curl -d sends JSON as a form; no route takes forms, and httplib would cap the body at 8 KiB
    // (a false 413) before any route saw it.
    if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0) {
        req.headers.erase("Content-Type");
        req.headers.emplace("Content-Type", "application/json");
    }
}

std::size_t active_share(const HttpLimits& limits, int threads) {
    if (limits.max_active_per_address > 0) return limits.max_active_per_address;
    return std::max<std::size_t>(1, static_cast<std::size_t>(threads) / 2);
}

}  // namespace

GuardedHttpServer::GuardedHttpServer(HttpLimits limits, int request_threads, int read_timeout_s, int write_timeout_s)
    : limits_(limits),
      read_timeout_s_(read_timeout_s),
      write_timeout_s_(write_timeout_s),
      gate_(
          limits_, [this](std::unique_ptr<Connection> c) { workers_.submit(std::move(c)); },
          [this](std::unique_ptr<Connection> c, int status, std::string message) {
              finish(std::move(c), status, message);
          }),
      workers_(
          static_cast<std::size_t>(request_threads), active_share(limits_, request_threads),
          [this](std::unique_ptr<Connection> c) { serve_one(std::move(c)); },
          [this](std::unique_ptr<Connection> c) { finish(std::move(c), 0, {}); }) {
    // httplib's own pool only hands accepted sockets to the gate; it never waits on a client.
    new_task_queue = [] { return new httplib::ThreadPool(2); };
    set_read_timeout(read_timeout_s, 0);
    set_write_timeout(write_timeout_s, 0);
    set_logger([](const httplib::Request& req, const httplib::Response& res) {
        log_request(req.method, req.path, res.status, seconds_since(t_request_started) * 1000.0);
    });
}

GuardedHttpServer::~GuardedHttpServer() {
    stopping_.store(true);
    gate_.stop();
    workers_.stop();
}

void GuardedHttpServer::apply_backlog() {
    // listen(2) again on a listening socket changes its backlog (httplib 0.11 hard-codes 5).
    if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, limits_.backlog);
}

bool GuardedHttpServer::serve() {
    gate_.start();
    workers_.start();
    const bool ok = listen_after_bind();
    stopping_.store(true);
    gate_.stop();
    workers_.stop();
    return ok;
}

GuardedHttpServer::Counts GuardedHttpServer::counts() const {
    std::lock_guard lock(count_mu_);
    return {open_, per_address_.size()};
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
    auto c = std::make_unique<Connection>();
    c->fd = sock;
    if (!peer_address(sock, c->peer_host, c->peer_port)) {
        close_quietly(sock);
        return false;
    }
    std::string refusal;
    {
        std::lock_guard lock(count_mu_);
        std::size_t& mine = per_address_[c->peer_host];
        if (open_ >= limits_.max_connections)
            refusal = "the server has " + std::to_string(open_) + " connections open (--max-connections); retry later";
        else if (mine >= limits_.max_connections_per_address)
            refusal = "your address has " + std::to_string(mine) +
                      " connections open (--max-connections-per-address); close some or retry later";
        if (refusal.empty()) {
            ++open_;
            ++mine;
        } else if (mine == 0) {
            per_address_.erase(c->peer_host);
        }
    }
    if (!refusal.empty()) {
        if (tls_)
            close_quietly(sock);
        else
            reply_and_close(sock, 503, "too_many_connections", refusal);
        return false;
    }
    // A response goes out in several writes (head, body; TLS records): with Nagle's algorithm the
    // later ones wait for the client's delayed ACK, 40 ms per keep-alive request (measured).
    int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (tls_) {
        try {
            c->tls = std::make_unique<TlsSession>(tls_->native(), sock);
        } catch (const std::exception& e) {
            spdlog::error("connection from {}: {}", c->peer_host, e.what());
            finish(std::move(c), 0, {});
            return false;
        }
    }
    c->deadline = Connection::Clock::now() + std::chrono::seconds(limits_.head_timeout_s);
    gate_.add(std::move(c));
    return true;
}

void GuardedHttpServer::serve_one(std::unique_ptr<Connection> c) {
    bool keep = false;
    try {
        ConnectionStream stream(*c, read_timeout_s_, write_timeout_s_, stopping_);
        if (stream.take_head()) {
            const bool last = c->served + 1 >= limits_.keep_alive_max || stopping_.load();
            bool closed = false;
            t_request_started = SteadyClock::now();
            const bool ok = process_request(stream, last, closed, neutralise);
            ++c->served;
            // A request httplib did not read to the end of its head (a malformed one) leaves the
            // stream out of step with the socket: close rather than parse the rest as a request.
            keep = ok && !closed && !last && !stopping_.load() && stream.head_consumed();
        }
    } catch (const std::exception& e) {
        spdlog::error("connection from {}: {}", c->peer_host, e.what());
    }
    if (!keep) return finish(std::move(c), 0, {});
    c->head_started = false;
    c->head_bytes = 0;
    c->deadline = Connection::Clock::now() + std::chrono::seconds(limits_.keep_alive_timeout_s);
    gate_.add(std::move(c));
}

void GuardedHttpServer::finish(std::unique_ptr<Connection> c, int status, const std::string& message) {
    const char* code = status == 408   ? "request_timeout"
                       : status == 400 ? "tls_required"
                                       : "request_header_fields_too_large";
    if (c->tls && c->tls->established()) {
        c->tls->send_and_close(status != 0 ? early_reply_text(status, code, message) : std::string());
        close_quietly(c->fd);
    } else if (status != 0 && (!c->tls || status == 400)) {
        // 400: a plain-HTTP client on the TLS port is answered in plain HTTP, which it can read.
        reply_and_close(c->fd, status, code, message);
    } else {
        close_quietly(c->fd);
    }
    c->tls.reset();
    std::lock_guard lock(count_mu_);
    --open_;
    if (auto it = per_address_.find(c->peer_host); it != per_address_.end() && --it->second == 0)
        per_address_.erase(it);
}

}  // namespace snapdoc::server
