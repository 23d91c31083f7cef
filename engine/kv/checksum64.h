// A fast 64-bit checksum for the on-disk K/V cache files (hundreds of MB per document, verified on
// every reopen, so it has to run near memory speed) and for hashing cache-key material (token ids,
// model headers). Four independent multiply-rotate lanes over 32-byte stripes, then an avalanche
// finish; every step is a bijection of the lane state for a fixed input word, so any change to one
// word changes the result. It detects truncation and corruption; it is not a cryptographic hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace snapdoc {

class Checksum64 {
public:
    explicit Checksum64(uint64_t seed = 0);
    void update(const void* data, std::size_t n);
    void update_u64(uint64_t v) { update(&v, sizeof v); }
    void update_string(std::string_view s) {
        update_u64(s.size());
        update(s.data(), s.size());
    }
    uint64_t digest() const;  // does not change the state: more data may follow

private:
    void stripe(const unsigned char* p);

    uint64_t lane_[4];
    unsigned char buf_[32];
    std::size_t buffered_ = 0;
    uint64_t total_ = 0;
    uint64_t seed_;
};

uint64_t checksum64(const void* data, std::size_t n, uint64_t seed = 0);

}  // namespace snapdoc
