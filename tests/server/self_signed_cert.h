// A self-signed certificate for 127.0.0.1 made at test time with OpenSSL's API (no `openssl`
// command needed): an EC P-256 key, subject and subjectAltName IP:127.0.0.1, written as PEM files
// (the key mode 0600). The TLS tests trust it with --ca-cert, as a user trusts their own server.
#pragma once

#include <filesystem>

namespace snapdoc::test {

struct CertFiles {
    std::filesystem::path cert, key;
};

// Valid from `valid_from_days` (negative: in the past) for `valid_days`. Throws std::runtime_error.
CertFiles make_self_signed_cert(const std::filesystem::path& dir, const std::string& name, int valid_from_days = 0,
                                int valid_days = 2);

}  // namespace snapdoc::test
