#include "tests/server/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace snapdoc::test {

int connect_loopback(int port, const std::string& source) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (!source.empty()) {
        sockaddr_in s{};
        s.sin_family = AF_INET;
        inet_pton(AF_INET, source.c_str(), &s.sin_addr);
        if (bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s) != 0) {
            close(fd);
            return -1;
        }
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool send_text(int fd, const std::string& text) {
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

bool reply_complete(const std::string& reply) {
    const auto end = reply.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    const auto cl = reply.find("Content-Length: ");
    if (cl == std::string::npos || cl > end) return false;
    return reply.size() >= end + 4 + std::strtoul(reply.c_str() + cl + 16, nullptr, 10);
}

std::string read_reply(int fd, int seconds) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!reply_complete(out)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
        char buf[4096];
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

int reply_status(const std::string& reply) {
    if (reply.rfind("HTTP/1.", 0) != 0 || reply.size() < 12) return 0;
    return std::atoi(reply.c_str() + 9);
}

}  // namespace snapdoc::test
