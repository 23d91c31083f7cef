#include "app/server/socket_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace snapdoc::server {

bool numeric_address(const sockaddr_storage& a, std::string& host, int& port) {
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

bool peer_address(int fd, std::string& host, int& port) {
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    return ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0 && numeric_address(a, host, port);
}

bool local_address(int fd, std::string& host, int& port) {
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    return ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0 && numeric_address(a, host, port);
}

}  // namespace snapdoc::server
