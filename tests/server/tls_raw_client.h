// A raw TLS client for the transport tests over HTTPS: what cpp-httplib's SSLClient will not do
// (a partial head after the handshake, bytes one at a time), every wait bounded. The server's
// certificate is not checked here: these tests are about the server's limits, not about trust
// (the CLI tests check trust).
#pragma once

#include <string>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace snapdoc::test {

class TlsRawClient {
public:
    TlsRawClient() = default;
    ~TlsRawClient();
    TlsRawClient(const TlsRawClient&) = delete;
    TlsRawClient& operator=(const TlsRawClient&) = delete;

    // Connects to 127.0.0.1:port and completes the handshake within 10 s; false otherwise.
    bool connect(int port);
    bool send(const std::string& text);
    // As read_reply (raw_client.h): until the server closes, a complete response, or `seconds`.
    std::string read_reply(int seconds);
    // The socket (for the drip loops' non-blocking sends); -1 before connect.
    int fd() const { return fd_; }

private:
    int fd_ = -1;
    SSL_CTX* ctx_ = nullptr;
    SSL* ssl_ = nullptr;
};

}  // namespace snapdoc::test
