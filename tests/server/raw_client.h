// Raw TCP clients for the hostile-transport tests: what cpp-httplib's client will not send
// (partial heads, floods, bytes one at a time) on loopback, every wait bounded.
#pragma once

#include <string>

namespace snapdoc::test {

// A blocking IPv4 socket connected to 127.0.0.1:port, bound first to `source` (another loopback
// address such as "127.0.0.2" stands for another client); -1 on failure.
int connect_loopback(int port, const std::string& source = {});
bool send_text(int fd, const std::string& text);
// What the server sends until it closes the connection, a complete response arrived, or
// `seconds` pass.
std::string read_reply(int fd, int seconds);
// Whether `reply` holds a whole response (its head and Content-Length bytes of body).
bool reply_complete(const std::string& reply);
// The status code of a raw HTTP response ("HTTP/1.1 431 ..."), 0 when there is none.
int reply_status(const std::string& reply);

}  // namespace snapdoc::test
