#include "app/server/client_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace snapdoc::server {

namespace {

// The numeric address and port of a socket address (IPv4 or IPv6), as httplib writes them.
bool address_of(const sockaddr_storage& a, std::string& host, int& port) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
        const auto& in = reinterpret_cast<const sockaddr_in&>(a);
        if (!inet_ntop(AF_INET, &in.sin_addr, buf, sizeof buf)) return false;
        port = ntohs(in.sin_port);
    } else if (a.ss_family == AF_INET6) {
        const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
        if (!inet_ntop(AF_INET6, &in6.sin6_addr, buf, sizeof buf)) return false;
        port = ntohs(in6.sin6_port);
    } else {
        return false;
    }
    host = buf;
    return true;
}

bool is_connection(int fd, const httplib::Request& req) {
    sockaddr_storage local{}, peer{};
    socklen_t n = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0) return false;  // not a socket
    std::string host;
    int port = -1;
    if (!address_of(local, host, port) || port != req.local_port || host != req.local_addr) return false;
    n = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &n) != 0) return false;  // the listener
    return address_of(peer, host, port) && port == req.remote_port && host == req.remote_addr;
}

}  // namespace

ClientConnection::ClientConnection(const httplib::Request& req) {
    if (req.remote_port < 0 || req.local_port < 0) return;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
        char* end = nullptr;
        const std::string name = entry.path().filename().string();
        const long fd = std::strtol(name.c_str(), &end, 10);
        if (end == name.c_str() || *end != '\0' || fd < 0) continue;
        if (is_connection(static_cast<int>(fd), req)) {
            fd_ = static_cast<int>(fd);
            return;
        }
    }
}

bool ClientConnection::gone() const {
    if (fd_ < 0) return false;
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0) return false;  // nothing to read: open (or poll failed: unknown)
    if (p.revents & (POLLERR | POLLHUP | POLLRDHUP | POLLNVAL)) return true;
    char c;
    // Readable: the end of the stream (0) or an error means closed; data (a pipelined request) not.
    const ssize_t r = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace snapdoc::server
