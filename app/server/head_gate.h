// Where GuardedHttpServer's connections wait for a complete request head without holding a
// thread: one thread watches every such socket with epoll (edge-triggered, so a socket with a
// partial head wakes it only when more bytes arrive) and looks at the bytes with MSG_PEEK, leaving
// them for httplib to parse. A head that completes within the limits goes to `ready`; a head too
// large, with too many lines or too slow, and an idle keep-alive connection, go to `refused`
// (status 431 / 408, or 0 for a quiet close). This is what keeps slow clients (one header byte
// every few seconds) from stalling the request threads, and bounds what a header flood can cost.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "app/server/connection.h"
#include "app/server/http_limits.h"

namespace snapdoc::server {

class HeadGate {
public:
    using Ready = std::function<void(std::unique_ptr<Connection>)>;
    using Refused = std::function<void(std::unique_ptr<Connection>, int status, std::string message)>;

    HeadGate(const HttpLimits& limits, Ready ready, Refused refused);
    ~HeadGate();
    HeadGate(const HeadGate&) = delete;
    HeadGate& operator=(const HeadGate&) = delete;

    void start();
    // Thread-safe. `connection.deadline` says how long it may wait for its first byte.
    void add(std::unique_ptr<Connection> connection);
    // Ends the thread; every connection still waiting is refused quietly (status 0).
    void stop();

    // What the gate found in the bytes a connection has sent so far (exposed for the unit test).
    enum class Head { Incomplete, Complete, TooLarge, TooManyLines };
    static Head inspect(const char* bytes, std::size_t size, const HttpLimits& limits, std::size_t& head_bytes);

private:
    void run();
    void take_new();
    // Peeks at `c`'s bytes; true when it left the gate (ready or refused). `hung_up`: the client
    // closed its side (or the socket failed), so an incomplete head is dropped.
    bool examine(Connection& c, bool hung_up);
    void leave(int fd);

    const HttpLimits& limits_;
    Ready ready_;
    Refused refused_;
    int epoll_fd_ = -1, wake_fd_ = -1;
    std::thread thread_;
    std::mutex mu_;
    std::vector<std::unique_ptr<Connection>> incoming_;
    bool stop_ = false;
    std::unordered_map<int, std::unique_ptr<Connection>> waiting_;  // the gate thread's only
    std::vector<char> peek_;
};

}  // namespace snapdoc::server
