#include "engine/common/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "engine/common/error.h"

namespace snapdoc {

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
    std::random_device rd;
    const auto dir = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
    temp_ = dir / ("." + target_.filename().string() + ".tmp-" + std::to_string(rd()));
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) throw Error("cannot create " + temp_.string() + ": " + std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
    if (file_) std::fclose(file_);
    if (!committed_) {
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
    }
}

void AtomicFileWriter::fail(const std::string& what) {
    const int err = errno;
    if (file_) std::fclose(file_);
    file_ = nullptr;
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    throw Error("cannot write " + target_.string() + ": " + what + (err ? std::string(": ") + std::strerror(err) : ""));
}

void AtomicFileWriter::write(const void* data, std::size_t n) {
    if (!file_) throw Error("write after commit or failure: " + target_.string());
    if (n && std::fwrite(data, 1, n, file_) != n) fail("write failed");
    written_ += n;
}

void AtomicFileWriter::pad_to(std::size_t alignment) {
    const std::size_t rem = written_ % alignment;
    if (rem == 0) return;
    std::vector<char> zeros(alignment - rem, 0);
    write(zeros.data(), zeros.size());
}

void AtomicFileWriter::commit() {
    if (!file_) throw Error("commit after failure: " + target_.string());
    errno = 0;
    if (std::fflush(file_) != 0) fail("flush failed");
    if (::fsync(fileno(file_)) != 0) fail("fsync failed");
    if (std::fclose(file_) != 0) {
        file_ = nullptr;
        fail("close failed");
    }
    file_ = nullptr;
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) {
        std::filesystem::remove(temp_, ec);
        throw Error("cannot rename into " + target_.string() + ": " + ec.message());
    }
    committed_ = true;
}

}  // namespace snapdoc
