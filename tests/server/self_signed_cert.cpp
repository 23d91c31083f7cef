#include "tests/server/self_signed_cert.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace snapdoc::test {

namespace {

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};

void write_pem(const std::filesystem::path& path, mode_t mode, const std::function<int(FILE*)>& write) {
    std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
    if (!f || write(f.get()) != 1) throw std::runtime_error("cannot write " + path.string());
    ::chmod(path.c_str(), mode);
}

}  // namespace

CertFiles make_self_signed_cert(const std::filesystem::path& dir, const std::string& name, int valid_from_days,
                                int valid_days) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
    std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
    if (!key || !cert) throw std::runtime_error("OpenSSL could not make a key");
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), static_cast<long>(valid_from_days) * 86400 - 3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_from_days + valid_days) * 86400);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME* subject = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1,
                               -1, 0);
    X509_set_issuer_name(cert.get(), subject);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
    for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                                     std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
        X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
        if (!ext) throw std::runtime_error("OpenSSL could not make a certificate extension");
        X509_add_ext(cert.get(), ext, -1);
        X509_EXTENSION_free(ext);
    }
    if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) throw std::runtime_error("OpenSSL could not sign");
    CertFiles out{dir / (name + "-cert.pem"), dir / (name + "-key.pem")};
    write_pem(out.cert, 0644, [&](FILE* f) { return PEM_write_X509(f, cert.get()); });
    write_pem(out.key, 0600, [&](FILE* f) {
        return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    return out;
}

}  // namespace snapdoc::test
