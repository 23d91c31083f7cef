// Whether the client of a request that is being answered without streaming is still connected.
// cpp-httplib 0.11 (Debian's) gives a handler no way to ask: the connection's socket is private
// (Stream is only seen by its own process_request, whose caller is private), and its
// DataSink::is_writable only select()s for writability, which a socket whose peer closed still
// has. So the socket is found by the request's public addresses: the one open socket whose local
// and peer address and port are the request's (a connection's 4-tuple names it uniquely while it
// is open, and httplib keeps it open until the handler returns). A closed connection then reads
// as end-of-file (recv with MSG_PEEK returns 0) or reports an error/hang-up on poll.
// A client that only half-closes (shutdown(SHUT_WR) after its request) also reads as gone; HTTP
// clients (curl, Python, Node, browsers) do not do that while waiting for a response.
#pragma once

#include <httplib.h>

namespace snapdoc::server {

class ClientConnection {
public:
    explicit ClientConnection(const httplib::Request& req);
    // True once the peer has closed the connection (or it failed). False while it is open, and
    // always when the socket could not be found (then nothing is known).
    bool gone() const;
    bool found() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace snapdoc::server
