// The httplib::Stream a request is served through on GuardedHttpServer's request threads. The
// head gate has already seen the whole request head in the socket; it is read here in one call
// and served from memory, then the body straight from the socket. Reads never take more than the
// caller asks, so the socket holds the next pipelined request untouched when this one is done.
// Over TLS the same holds for the connection's decrypted bytes (Connection::plain): the head is
// taken from there, then whatever else was decrypted, then new records.
// Every wait is bounded (the read or write timeout); a read gives up soon after the server stops.
#pragma once

#include <httplib.h>

#include <atomic>
#include <string>

#include "app/server/connection.h"

namespace snapdoc::server {

class ConnectionStream : public httplib::Stream {
public:
    ConnectionStream(Connection& connection, int read_timeout_s, int write_timeout_s,
                     const std::atomic<bool>& stopping);

    // Reads the head the gate found (connection.head_bytes) into memory; false if the socket
    // failed meanwhile.
    bool take_head();
    // Whether httplib read the whole head (it stops early only on a malformed request).
    bool head_consumed() const { return head_pos_ == head_.size(); }

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char* ptr, size_t size) override;
    ssize_t write(const char* ptr, size_t size) override;
    void get_remote_ip_and_port(std::string& ip, int& port) const override;
    void get_local_ip_and_port(std::string& ip, int& port) const override;
    socket_t socket() const override { return connection_.fd; }

private:
    // Polls for `events` for at most `timeout_s`, in short slices so that a stopping server is
    // noticed (by reads); false on timeout, error or (reading) stop.
    bool wait_for(short events, int timeout_s) const;

    // With TLS: one SSL read or write step at a time, waiting on the socket as the step says.
    ssize_t tls_read(char* ptr, size_t size);
    ssize_t tls_write(const char* ptr, size_t size);

    Connection& connection_;
    int read_timeout_s_, write_timeout_s_;
    const std::atomic<bool>& stopping_;
    std::string head_;
    std::size_t head_pos_ = 0;
};

}  // namespace snapdoc::server
