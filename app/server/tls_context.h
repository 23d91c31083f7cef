// The server's TLS identity (--ssl-cert / --ssl-key) as an OpenSSL SSL_CTX, checked in full at
// start: both files readable, the certificate chain and the key parsed as PEM, the key the one that
// matches the certificate. Every failure is an Error whose words name the flag and the file, so a
// misconfigured server stops before it listens instead of failing each handshake later.
// TLS 1.2 is the oldest version offered. An encrypted key is refused (no prompt for a passphrase:
// the server runs unattended).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

typedef struct ssl_ctx_st SSL_CTX;

namespace snapdoc::server {

class TlsContext {
public:
    TlsContext(const std::filesystem::path& cert_file, const std::filesystem::path& key_file);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    SSL_CTX* native() const { return ctx_; }
    // Set when the certificate's notAfter is already past (clients will refuse it; the server
    // still starts so an operator sees the warning rather than a silent outage).
    const std::string& warning() const { return warning_; }

private:
    SSL_CTX* ctx_ = nullptr;
    std::string warning_;
};

}  // namespace snapdoc::server
