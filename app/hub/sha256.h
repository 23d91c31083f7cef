// SHA-256 (OpenSSL's EVP, which uses the CPU's SHA extensions when present) for the download
// engine's verification and for tests comparing data with published checksums. Incremental:
// update() any number of times, then hex() once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace snapdoc::hub {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;
    void update(const void* data, std::size_t bytes);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::string hex();  // finishes the hash (lowercase hex); call once

private:
    struct Ctx;
    std::unique_ptr<Ctx> ctx_;
};

std::string sha256_hex(std::string_view data);
// Hashes the first `bytes` bytes of a file (-1: all of it) into `hash`; throws Error on a read error.
void sha256_update_from_file(Sha256& hash, const std::filesystem::path& file, int64_t bytes = -1);

}  // namespace snapdoc::hub
