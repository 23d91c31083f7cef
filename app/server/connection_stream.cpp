#include "app/server/connection_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "app/server/socket_address.h"

namespace snapdoc::server {

namespace {
constexpr int kSliceMs = 200;
}

ConnectionStream::ConnectionStream(Connection& connection, int read_timeout_s, int write_timeout_s,
                                   const std::atomic<bool>& stopping)
    : connection_(connection),
      read_timeout_s_(read_timeout_s),
      write_timeout_s_(write_timeout_s),
      stopping_(stopping) {}

bool ConnectionStream::take_head() {
    head_pos_ = 0;
    if (connection_.tls) {
        if (connection_.plain.size() < connection_.head_bytes) return false;
        head_.assign(connection_.plain, 0, connection_.head_bytes);
        connection_.plain.erase(0, connection_.head_bytes);
        return true;
    }
    head_.resize(connection_.head_bytes);
    std::size_t got = 0;
    while (got < head_.size()) {
        const ssize_t n = ::recv(connection_.fd, head_.data() + got, head_.size() - got, MSG_DONTWAIT);
        if (n > 0) {
            got += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            return false;  // the gate peeked these bytes, so they are there unless the socket broke
        }
    }
    return true;
}

bool ConnectionStream::wait_for(short events, int timeout_s) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    // A stopping server still finishes what it is sending (a stream in flight drains to its end,
    // bounded by the write timeout); it only stops waiting for a client's bytes.
    while (events == POLLOUT || !stopping_.load()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{connection_.fd, events, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), kSliceMs)));
        if (r > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
        if (r < 0 && errno != EINTR) return false;
    }
    return false;
}

bool ConnectionStream::is_readable() const {
    if (head_pos_ < head_.size()) return true;
    if (connection_.tls && (!connection_.plain.empty() || connection_.tls->pending())) return true;
    return wait_for(POLLIN, read_timeout_s_);
}

bool ConnectionStream::is_writable() const {
    return wait_for(POLLOUT, write_timeout_s_);
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
    if (head_pos_ < head_.size()) {
        const std::size_t n = std::min(size, head_.size() - head_pos_);
        std::memcpy(ptr, head_.data() + head_pos_, n);
        head_pos_ += n;
        return static_cast<ssize_t>(n);
    }
    if (connection_.tls) return tls_read(ptr, size);
    if (!wait_for(POLLIN, read_timeout_s_)) return -1;
    ssize_t n;
    do {
        n = ::recv(connection_.fd, ptr, size, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
    if (connection_.tls) return tls_write(ptr, size);
    if (!is_writable()) return -1;
    ssize_t n;
    do {
        n = ::send(connection_.fd, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t ConnectionStream::tls_read(char* ptr, size_t size) {
    std::string& plain = connection_.plain;
    if (!plain.empty()) {
        const std::size_t n = std::min(size, plain.size());
        std::memcpy(ptr, plain.data(), n);
        plain.erase(0, n);
        return static_cast<ssize_t>(n);
    }
    // Each wait is bounded by the read timeout; a client that keeps a record half-sent for longer
    // ends the request as a silent one would.
    for (;;) {
        std::size_t n = 0;
        switch (connection_.tls->read_some(ptr, size, n)) {
            case TlsSession::Step::Ok: return static_cast<ssize_t>(n);
            case TlsSession::Step::WantRead:
                if (!wait_for(POLLIN, read_timeout_s_)) return -1;
                break;
            case TlsSession::Step::WantWrite:
                if (!wait_for(POLLOUT, write_timeout_s_)) return -1;
                break;
            case TlsSession::Step::Closed: return 0;
            case TlsSession::Step::Failed: return -1;
        }
    }
}

ssize_t ConnectionStream::tls_write(const char* ptr, size_t size) {
    for (;;) {
        std::size_t n = 0;
        switch (connection_.tls->write_some(ptr, size, n)) {
            case TlsSession::Step::Ok: return static_cast<ssize_t>(n);
            case TlsSession::Step::WantWrite:
                if (!wait_for(POLLOUT, write_timeout_s_)) return -1;
                break;
            case TlsSession::Step::WantRead:
                if (!wait_for(POLLIN, read_timeout_s_)) return -1;
                break;
            case TlsSession::Step::Closed:
            case TlsSession::Step::Failed: return -1;
        }
    }
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
    ip = connection_.peer_host;
    port = connection_.peer_port;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
    if (!local_address(connection_.fd, ip, port)) port = -1;
}

}  // namespace snapdoc::server
