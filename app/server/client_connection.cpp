#include "app/server/client_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/server/socket_address.h"

namespace snapdoc::server {

namespace {

bool is_connection(int fd, const httplib::Request& req) {
    std::string host;
    int port = -1;
    // Not a socket, or not this connection's local end; then the listener has no peer.
    if (!local_address(fd, host, port) || port != req.local_port || host != req.local_addr) return false;
    return peer_address(fd, host, port) && port == req.remote_port && host == req.remote_addr;
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
