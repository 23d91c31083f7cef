// The numeric addresses of a connected socket, written as cpp-httplib writes them into
// Request::remote_addr / local_addr (so a route, the connection guard and ClientConnection agree).
#pragma once

#include <sys/socket.h>

#include <string>

namespace snapdoc::server {

// "127.0.0.1" / "::1" and the port of an IPv4 or IPv6 socket address; false for other families.
bool numeric_address(const sockaddr_storage& address, std::string& host, int& port);
// The peer's (getpeername) or the local (getsockname) address of `fd`; false when it has none.
bool peer_address(int fd, std::string& host, int& port);
bool local_address(int fd, std::string& host, int& port);

}  // namespace snapdoc::server
