#include "tests/server/tls_raw_client.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include "tests/server/raw_client.h"

namespace snapdoc::test {

TlsRawClient::~TlsRawClient() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
    if (fd_ >= 0) ::close(fd_);
}

bool TlsRawClient::connect(int port) {
    // OpenSSL writes with write(2), not send(MSG_NOSIGNAL): a drip that writes after the server
    // closed (its 408) must fail the write, not end the test process.
    std::signal(SIGPIPE, SIG_IGN);
    fd_ = connect_loopback(port);
    if (fd_ < 0) return false;
    // Blocking socket with bounded reads and writes: the handshake and each send end within 10 s.
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ctx_) return false;
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    ssl_ = SSL_new(ctx_);
    if (!ssl_ || SSL_set_fd(ssl_, fd_) != 1) return false;
    const bool ok = SSL_connect(ssl_) == 1;
    ERR_clear_error();
    return ok;
}

bool TlsRawClient::send(const std::string& text) {
    if (!ssl_) return false;
    std::size_t n = 0;
    const bool ok = SSL_write_ex(ssl_, text.data(), text.size(), &n) == 1 && n == text.size();
    ERR_clear_error();
    return ok;
}

std::string TlsRawClient::read_reply(int seconds) {
    std::string out;
    if (!ssl_) return out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!reply_complete(out)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        if (SSL_pending(ssl_) == 0) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
        }
        char buf[4096];
        std::size_t n = 0;
        if (SSL_read_ex(ssl_, buf, sizeof buf, &n) != 1) {
            // A record still incomplete after the poll (the SO_RCVTIMEO ran out): try again.
            if (SSL_get_error(ssl_, 0) == SSL_ERROR_WANT_READ) continue;
            break;
        }
        out.append(buf, n);
    }
    ERR_clear_error();
    return out;
}

}  // namespace snapdoc::test
