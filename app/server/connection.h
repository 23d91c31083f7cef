// One accepted client connection as GuardedHttpServer passes it between its head gate (waiting
// for a complete request head, no thread held) and its request threads (serving that request).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "app/server/tls_session.h"

namespace snapdoc::server {

struct Connection {
    using Clock = std::chrono::steady_clock;

    int fd = -1;
    std::string peer_host;  // the numeric client address (the per-address limits count by it)
    int peer_port = -1;
    std::size_t served = 0;  // requests answered on it so far (keep-alive)

    // In the gate: until when it may wait. Before its first byte that is the keep-alive (or, for
    // a new connection, the head) timeout; from the first byte of a head, the head deadline.
    Clock::time_point deadline{};
    bool head_started = false;
    // The length of the complete head the gate found: peeked and still in the socket for plain
    // HTTP; with TLS, at the start of `plain`.
    std::size_t head_bytes = 0;

    // With --ssl-cert: the connection's TLS session, and the bytes decrypted but not yet read by a
    // request (a head the gate is waiting on, a body or a pipelined request that came with it).
    std::unique_ptr<TlsSession> tls;
    std::string plain;
};

}  // namespace snapdoc::server
