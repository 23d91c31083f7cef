#include "app/server/early_reply.h"

#include <sys/socket.h>
#include <unistd.h>

#include "app/server/api_error.h"

namespace snapdoc::server {

namespace {

const char* reason(int status) {
    switch (status) {
        case 400: return "Bad Request";
        case 408: return "Request Timeout";
        case 431: return "Request Header Fields Too Large";
        case 503: return "Service Unavailable";
        default: return "Error";
    }
}

}  // namespace

std::string early_reply_text(int status, const std::string& code, const std::string& message) {
    const std::string type = status >= 500 ? "server_busy_error" : "invalid_request_error";
    const std::string body = ApiError(status, type, message, code).body().dump();
    const std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
                             "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n";
    return head + body;
}

void reply_and_close(int fd, int status, const std::string& code, const std::string& message) {
    const std::string all = early_reply_text(status, code, message);
    // A few hundred bytes fit any socket buffer; a client whose window is full loses the reply.
    (void)::send(fd, all.data(), all.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    close_quietly(fd);
}

void close_quietly(int fd) {
    ::shutdown(fd, SHUT_WR);
    char sink[4096];
    for (int i = 0; i < 32; ++i)  // at most 128 KiB: what a head gate allows, and then some
        if (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) <= 0) break;
    ::close(fd);
}

}  // namespace snapdoc::server
