#include "app/server/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdio>
#include <fstream>

#include "engine/common/error.h"

namespace snapdoc::server {

namespace {

// OpenSSL's queued errors as one line ("" when none), emptying the queue.
std::string openssl_errors() {
    std::string out;
    while (const unsigned long e = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        if (!out.empty()) out += "; ";
        out += buf;
    }
    return out;
}

void require_readable(const char* flag, const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw Error(std::string(flag) + " " + file.string() + ": no such file");
    std::ifstream in(file, std::ios::binary);
    if (!in || in.peek() == std::char_traits<char>::eof())
        throw Error(std::string(flag) + " " + file.string() + ": cannot be read (permissions?) or is empty");
}

// Never asks for a passphrase: an encrypted key fails to load and is reported as such.
int no_passphrase(char*, int, int, void*) {
    return 0;
}

}  // namespace

TlsContext::TlsContext(const std::filesystem::path& cert_file, const std::filesystem::path& key_file) {
    require_readable("--ssl-cert", cert_file);
    require_readable("--ssl-key", key_file);
    ERR_clear_error();
    ctx_ = SSL_CTX_new(TLS_server_method());
    if (!ctx_) throw Error("cannot set up TLS: " + openssl_errors());
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    SSL_CTX_set_default_passwd_cb(ctx_, no_passphrase);
    // The streams write what they can and come back for the rest from the same buffer position.
    SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    try {
        if (SSL_CTX_use_certificate_chain_file(ctx_, cert_file.c_str()) != 1)
            throw Error("--ssl-cert " + cert_file.string() + ": not a PEM certificate (" + openssl_errors() + ")");
        // Read on its own first, so that a key that is fine but not the certificate's is told
        // apart from a file that is not a key at all.
        EVP_PKEY* key = nullptr;
        if (FILE* f = std::fopen(key_file.c_str(), "rb")) {
            key = PEM_read_PrivateKey(f, nullptr, no_passphrase, nullptr);
            std::fclose(f);
        }
        if (!key)
            throw Error("--ssl-key " + key_file.string() +
                        ": not an unencrypted PEM private key (" + openssl_errors() + ")");
        const bool taken = SSL_CTX_use_PrivateKey(ctx_, key) == 1;
        EVP_PKEY_free(key);
        if (!taken || SSL_CTX_check_private_key(ctx_) != 1)
            throw Error("--ssl-key " + key_file.string() + " is not the private key of the certificate in --ssl-cert " +
                        cert_file.string());
    } catch (...) {
        SSL_CTX_free(ctx_);
        ctx_ = nullptr;
        throw;
    }
    if (X509* cert = SSL_CTX_get0_certificate(ctx_); cert && X509_cmp_current_time(X509_get0_notAfter(cert)) < 0)
        warning_ = "the certificate in --ssl-cert " + cert_file.string() + " has expired; clients will refuse it";
}

TlsContext::~TlsContext() {
    if (ctx_) SSL_CTX_free(ctx_);
}

}  // namespace snapdoc::server
