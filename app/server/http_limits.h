// What one connection may cost snapdoc-server before a route sees its request (flags in
// app/server_main, documented in docs/server.md). cpp-httplib 0.11 serves a connection on one
// thread from its first byte, with a per-read timeout only, an unbounded header count and a listen
// backlog of 5; GuardedHttpServer enforces these instead.
#pragma once

#include <cstddef>

namespace snapdoc::server {

struct HttpLimits {
    // The whole request head (request line and headers) must arrive within this many seconds of
    // its first byte, however it is spread (a client sending one byte every few seconds is cut off).
    int head_timeout_s = 10;
    std::size_t max_head_bytes = 64 * 1024;  // 431 above
    std::size_t max_header_count = 100;      // 431 above
    // Open connections: all of them, and from one client address (503 beyond, at once).
    std::size_t max_connections = 512;
    std::size_t max_connections_per_address = 64;
    // Requests from one address being served at once (their heads complete); more wait their turn
    // while other addresses are served. 0: half of the request threads.
    std::size_t max_active_per_address = 0;
    int backlog = 511;               // listen(2) backlog (the kernel caps it at somaxconn)
    int keep_alive_timeout_s = 5;    // an idle keep-alive connection is closed after this
    std::size_t keep_alive_max = 100;  // requests on one connection
};

}  // namespace snapdoc::server
