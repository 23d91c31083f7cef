#include "engine/kv/checksum64.h"

#include <algorithm>
#include <cstring>

namespace snapdoc {

namespace {

// Odd 64-bit constants with well-mixed bits (from the fractional parts of sqrt(2), sqrt(3), e, pi):
// multiplication by an odd constant is invertible mod 2^64.
constexpr uint64_t kM1 = 0x6a09e667f3bcc909ull;
constexpr uint64_t kM2 = 0xbb67ae8584caa73bull;
constexpr uint64_t kM3 = 0xb7e151628aed2a6bull;
constexpr uint64_t kM4 = 0x243f6a8885a308d3ull;

inline uint64_t rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

inline uint64_t load64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;  // little-endian hosts only (the cache files are little-endian)
}

inline uint64_t mix_word(uint64_t lane, uint64_t w) {
    return rotl(lane ^ (w * kM1), 29) * kM2;
}

inline uint64_t avalanche(uint64_t x) {
    x ^= x >> 31;
    x *= kM3;
    x ^= x >> 29;
    x *= kM4;
    x ^= x >> 32;
    return x;
}

}  // namespace

Checksum64::Checksum64(uint64_t seed) : seed_(seed) {
    lane_[0] = seed ^ kM1;
    lane_[1] = seed + kM2;
    lane_[2] = rotl(seed, 17) ^ kM3;
    lane_[3] = seed * kM4 + 1;
}

void Checksum64::stripe(const unsigned char* p) {
    lane_[0] = mix_word(lane_[0], load64(p));
    lane_[1] = mix_word(lane_[1], load64(p + 8));
    lane_[2] = mix_word(lane_[2], load64(p + 16));
    lane_[3] = mix_word(lane_[3], load64(p + 24));
}

void Checksum64::update(const void* data, std::size_t n) {
    auto p = static_cast<const unsigned char*>(data);
    total_ += n;
    if (buffered_ > 0) {
        const std::size_t take = std::min(n, sizeof buf_ - buffered_);
        std::memcpy(buf_ + buffered_, p, take);
        buffered_ += take;
        p += take;
        n -= take;
        if (buffered_ < sizeof buf_) return;
        stripe(buf_);
        buffered_ = 0;
    }
    for (; n >= 32; p += 32, n -= 32) stripe(p);
    std::memcpy(buf_, p, n);
    buffered_ = n;
}

uint64_t Checksum64::digest() const {
    uint64_t h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
    for (uint64_t l : lane_) h = (h ^ avalanche(l)) * kM1 + kM4;
    // The buffered tail: whole words, then bytes, each step position-dependent.
    std::size_t i = 0;
    for (; i + 8 <= buffered_; i += 8) h = rotl(h ^ avalanche(load64(buf_ + i)), 27) * kM2 + kM3;
    for (; i < buffered_; ++i) h = rotl(h ^ (uint64_t{buf_[i]} * kM4), 11) * kM1;
    h ^= total_ * kM3 ^ seed_;
    return avalanche(h);
}

uint64_t checksum64(const void* data, std::size_t n, uint64_t seed) {
    Checksum64 c(seed);
    c.update(data, n);
    return c.digest();
}

}  // namespace snapdoc
