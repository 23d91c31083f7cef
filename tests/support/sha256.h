// SHA-256 (FIPS 180-4) for tests that compare data with published checksums (e.g. the modelzoo
// fixtures' sha256 of dequantized tensors). Incremental: update() any number of times, then hex().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace snapdoc::testing {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t bytes);
    std::string hex();  // finishes the hash; call once

private:
    void block(const uint8_t* p);

    std::array<uint32_t, 8> h_;
    std::array<uint8_t, 64> buf_{};
    std::size_t buf_len_ = 0;
    uint64_t total_bytes_ = 0;
};

}  // namespace snapdoc::testing
