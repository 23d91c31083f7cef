#include "app/hub/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/common/error.h"

namespace snapdoc::hub {

struct Sha256::Ctx {
    EVP_MD_CTX* md = nullptr;
    ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
    ctx_->md = EVP_MD_CTX_new();
    if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
        throw Error("sha256: OpenSSL could not initialise a digest");
}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, std::size_t bytes) {
    if (bytes > 0) EVP_DigestUpdate(ctx_->md, data, bytes);
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_->md, digest, &n);
    static const char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += kHex[digest[i] >> 4];
        out += kHex[digest[i] & 15];
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    Sha256 h;
    h.update(data);
    return h.hex();
}

void sha256_update_from_file(Sha256& hash, const std::filesystem::path& file, int64_t bytes) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read '" + file.string() + "': " + std::strerror(errno));
    std::vector<char> buf(std::size_t{1} << 20);
    int64_t left = bytes < 0 ? INT64_MAX : bytes;
    while (left > 0) {
        const ssize_t n =
            ::read(fd, buf.data(), static_cast<std::size_t>(std::min<int64_t>(left, buf.size())));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error("cannot read '" + file.string() + "': " + std::strerror(err));
        }
        if (n == 0) break;
        hash.update(buf.data(), static_cast<std::size_t>(n));
        left -= n;
    }
    ::close(fd);
}

}  // namespace snapdoc::hub
