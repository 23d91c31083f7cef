// One connection's TLS state on a non-blocking socket: the handshake, reads and writes, each a
// single non-blocking step that says what it waits for. The head gate drives the handshake and
// the first reads from its epoll thread (no thread held per connection, as for plain HTTP); the
// request threads then read and write through ConnectionStream, which polls as the step says.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace snapdoc::server {

class TlsSession {
public:
    // The socket is switched to non-blocking mode. Throws Error when OpenSSL cannot make a session.
    TlsSession(SSL_CTX* ctx, int fd);
    ~TlsSession();
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;

    enum class Step {
        Ok,         // bytes moved (the count is returned separately)
        WantRead,   // nothing now: wait until the socket is readable
        WantWrite,  // nothing now: wait until the socket is writable
        Closed,     // the client closed (close_notify or end of stream)
        Failed,     // a TLS or socket error (a plain-HTTP client on this port, a bad record)
    };

    // Reads decrypted bytes into `out` (the handshake first, as needed) until the socket has no
    // more or `out` holds more than `limit` bytes. Ok when any byte was added.
    Step fill(std::string& out, std::size_t limit);
    // One SSL_read / SSL_write step; `n` is set on Ok.
    Step read_some(char* ptr, std::size_t size, std::size_t& n);
    Step write_some(const char* ptr, std::size_t size, std::size_t& n);
    // Decrypted bytes OpenSSL already holds (readable without the socket).
    bool pending() const;
    bool established() const { return established_; }
    // Whether the first bytes the client sent were a plain-HTTP request rather than TLS.
    bool plain_http_seen() const { return plain_http_; }
    // Best effort, never blocking: `text` (a short early reply) then close_notify.
    void send_and_close(const std::string& text);

private:
    Step step_result(int ret);

    SSL* ssl_ = nullptr;
    int fd_;
    bool established_ = false;
    bool plain_http_ = false;
    bool first_bytes_seen_ = false;
};

}  // namespace snapdoc::server
