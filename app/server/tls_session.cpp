#include "app/server/tls_session.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cctype>

#include "engine/common/error.h"

namespace snapdoc::server {

TlsSession::TlsSession(SSL_CTX* ctx, int fd) : fd_(fd) {
    const int flags = ::fcntl(fd, F_GETFL, 0);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    ssl_ = SSL_new(ctx);
    if (!ssl_ || SSL_set_fd(ssl_, fd) != 1) {
        if (ssl_) SSL_free(ssl_);
        throw Error("cannot start a TLS session");
    }
    SSL_set_accept_state(ssl_);
}

TlsSession::~TlsSession() {
    SSL_free(ssl_);
}

TlsSession::Step TlsSession::step_result(int ret) {
    if (ret > 0) return Step::Ok;
    const int e = SSL_get_error(ssl_, ret);
    ERR_clear_error();  // the queue is per thread; leave nothing for the next connection on it
    switch (e) {
        case SSL_ERROR_WANT_READ: return Step::WantRead;
        case SSL_ERROR_WANT_WRITE: return Step::WantWrite;
        case SSL_ERROR_ZERO_RETURN: return Step::Closed;
        case SSL_ERROR_SYSCALL: return ret == 0 ? Step::Closed : Step::Failed;
        default: return Step::Failed;
    }
}

TlsSession::Step TlsSession::fill(std::string& out, std::size_t limit) {
    if (!established_) {
        if (!first_bytes_seen_) {
            // A plain request's first bytes are an ASCII method; a TLS hello's first is 0x16.
            char first[4];
            if (::recv(fd_, first, sizeof first, MSG_PEEK | MSG_DONTWAIT) == 4) {
                first_bytes_seen_ = true;
                plain_http_ = std::isupper(static_cast<unsigned char>(first[0])) &&
                              std::isupper(static_cast<unsigned char>(first[1]));
            }
        }
        const Step s = step_result(SSL_do_handshake(ssl_));
        if (s != Step::Ok) return s;
        established_ = true;
    }
    bool added = false;
    char buf[16384];
    while (out.size() <= limit) {
        std::size_t n = 0;
        const Step s = read_some(buf, sizeof buf, n);
        if (s != Step::Ok) return added && (s == Step::WantRead || s == Step::WantWrite) ? Step::Ok : s;
        out.append(buf, n);
        added = true;
    }
    return Step::Ok;
}

TlsSession::Step TlsSession::read_some(char* ptr, std::size_t size, std::size_t& n) {
    n = 0;
    const Step s = step_result(SSL_read_ex(ssl_, ptr, size, &n) == 1 ? 1 : 0);
    // SSL_read_ex returns 0 on every failure; SSL_get_error tells them apart from the state.
    return s;
}

TlsSession::Step TlsSession::write_some(const char* ptr, std::size_t size, std::size_t& n) {
    n = 0;
    return step_result(SSL_write_ex(ssl_, ptr, size, &n) == 1 ? 1 : 0);
}

bool TlsSession::pending() const {
    return SSL_pending(ssl_) > 0;
}

void TlsSession::send_and_close(const std::string& text) {
    if (!established_) return;
    std::size_t n = 0;
    if (!text.empty()) (void)write_some(text.data(), text.size(), n);
    SSL_shutdown(ssl_);
    ERR_clear_error();
}

}  // namespace snapdoc::server
