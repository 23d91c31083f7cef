#include "app/server/head_gate.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/common/error.h"

namespace snapdoc::server {

namespace {

constexpr int kMaxWaitMs = 200;  // how soon a stop is noticed

int millis_until(Connection::Clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Connection::Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms, 0, kMaxWaitMs));
}

}  // namespace

HeadGate::HeadGate(const HttpLimits& limits, Ready ready, Refused refused)
    : limits_(limits), ready_(std::move(ready)), refused_(std::move(refused)), peek_(limits.max_head_bytes + 1) {}

HeadGate::~HeadGate() {
    stop();
}

void HeadGate::start() {
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0) throw Error(std::string("cannot set up the connection gate: ") + std::strerror(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wake_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    thread_ = std::thread([this] { run(); });
}

void HeadGate::add(std::unique_ptr<Connection> connection) {
    {
        std::lock_guard lock(mu_);
        if (!stop_) {
            incoming_.push_back(std::move(connection));
            connection = nullptr;
        }
    }
    if (connection) return refused_(std::move(connection), 0, {});
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
}

void HeadGate::stop() {
    {
        std::lock_guard lock(mu_);
        if (stop_) return;
        stop_ = true;
    }
    if (thread_.joinable()) thread_.join();
    for (auto& c : incoming_) refused_(std::move(c), 0, {});
    for (auto& [fd, c] : waiting_) refused_(std::move(c), 0, {});
    incoming_.clear();
    waiting_.clear();
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    epoll_fd_ = wake_fd_ = -1;
}

HeadGate::Head HeadGate::inspect(const char* bytes, std::size_t size, const HttpLimits& limits,
                                 std::size_t& head_bytes) {
    // httplib ends a head at the first line that is exactly "\r\n" (lines are split at '\n'),
    // so the head is everything up to the first "\n\r\n".
    // The request line and the header lines, each ended by its '\n'.
    std::size_t lines = 0;
    for (std::size_t i = 0; i < size; ++i) {
        if (bytes[i] != '\n') continue;
        if (++lines > limits.max_header_count + 1) return Head::TooManyLines;
        if (i + 2 < size && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') {
            head_bytes = i + 3;
            return head_bytes > limits.max_head_bytes ? Head::TooLarge : Head::Complete;
        }
    }
    return size > limits.max_head_bytes ? Head::TooLarge : Head::Incomplete;
}

void HeadGate::take_new() {
    uint64_t n;
    (void)!::read(wake_fd_, &n, sizeof n);
    std::vector<std::unique_ptr<Connection>> batch;
    {
        std::lock_guard lock(mu_);
        batch.swap(incoming_);
    }
    for (auto& c : batch) {
        const int fd = c->fd;
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
        ev.data.fd = fd;
        if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
            refused_(std::move(c), 0, {});
            continue;
        }
        Connection& ref = *c;
        waiting_.emplace(fd, std::move(c));
        examine(ref, false);  // bytes that arrived before it was watched raise no edge
    }
}

void HeadGate::leave(int fd) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

bool HeadGate::examine(Connection& c, bool hung_up) {
    const int fd = c.fd;
    auto out = [&](int status, std::string message) {
        leave(fd);
        auto node = waiting_.extract(fd);
        refused_(std::move(node.mapped()), status, std::move(message));
        return true;
    };
    const char* bytes = nullptr;
    std::size_t size = 0;
    if (c.tls) {
        // TLS bytes cannot be peeked: the handshake runs here, and what it decrypts is kept in
        // `plain` (read until the socket is drained, as the edge-triggered watch requires).
        char probe;
        const bool sent = ::recv(fd, &probe, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
        const TlsSession::Step step = c.tls->fill(c.plain, limits_.max_head_bytes);
        if (step == TlsSession::Step::Failed && c.tls->plain_http_seen())
            return out(400, "this port speaks HTTPS (TLS); use an https:// URL");
        if (step == TlsSession::Step::Closed || step == TlsSession::Step::Failed) return out(0, {});
        if (c.plain.empty()) {
            // A handshake under way counts as the head's start: a client that sends its TLS
            // hello one byte at a time is cut off by the head deadline as a slow head is.
            if (sent && !c.head_started) {
                c.head_started = true;
                c.deadline = Connection::Clock::now() + std::chrono::seconds(limits_.head_timeout_s);
            }
            return hung_up ? out(0, {}) : false;
        }
        bytes = c.plain.data();
        size = c.plain.size();
    } else {
        ssize_t n;
        do {
            n = ::recv(fd, peek_.data(), peek_.size(), MSG_PEEK | MSG_DONTWAIT);
        } while (n < 0 && errno == EINTR);
        // A client that closed its side sends nothing more: an incomplete head never completes.
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return hung_up ? out(0, {}) : false;
        if (n <= 0) return out(0, {});  // closed by the client, or broken
        bytes = peek_.data();
        size = static_cast<std::size_t>(n);
    }
    if (!c.head_started) {
        c.head_started = true;
        c.deadline = Connection::Clock::now() + std::chrono::seconds(limits_.head_timeout_s);
    }
    std::size_t head_bytes = 0;
    switch (inspect(bytes, size, limits_, head_bytes)) {
        case Head::Incomplete:
            return hung_up ? out(0, {}) : false;
        case Head::TooLarge:
            return out(431, "the request head is larger than " + std::to_string(limits_.max_head_bytes) +
                                " bytes (--max-header-kb)");
        case Head::TooManyLines:
            return out(431, "the request has more than " + std::to_string(limits_.max_header_count) +
                                " header lines (--max-headers)");
        case Head::Complete:
            break;
    }
    leave(fd);
    auto node = waiting_.extract(fd);
    node.mapped()->head_bytes = head_bytes;
    ready_(std::move(node.mapped()));
    return true;
}

void HeadGate::run() {
    std::vector<epoll_event> events(64);
    for (;;) {
        {
            std::lock_guard lock(mu_);
            if (stop_) return;
        }
        int wait_ms = kMaxWaitMs;
        for (const auto& [fd, c] : waiting_) wait_ms = std::min(wait_ms, millis_until(c->deadline));
        const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), wait_ms);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == wake_fd_) {
                take_new();
                continue;
            }
            if (auto it = waiting_.find(fd); it != waiting_.end())
                examine(*it->second, (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
        }
        // Past their deadline: a started head is too slow (408); an idle connection just closes.
        const auto now = Connection::Clock::now();
        std::vector<int> late;
        for (const auto& [fd, c] : waiting_)
            if (c->deadline <= now) late.push_back(fd);
        for (int fd : late) {
            leave(fd);
            auto node = waiting_.extract(fd);
            const bool started = node.mapped()->head_started;
            refused_(std::move(node.mapped()), started ? 408 : 0,
                     started ? "the request head did not arrive within " + std::to_string(limits_.head_timeout_s) +
                                   " s (--head-timeout)"
                             : std::string());
        }
    }
}

}  // namespace snapdoc::server
