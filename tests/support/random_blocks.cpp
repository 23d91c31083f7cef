#include "tests/support/random_blocks.h"

#include <cstring>

namespace snapdoc::testing {

std::vector<int> f16_scale_offsets(DType t) {
    switch (t) {
        case DType::Q4_1:
        case DType::Q5_1:
        case DType::Q4_K:
        case DType::Q5_K:
            return {0, 2};
        case DType::Q2_K:
            return {80, 82};
        case DType::Q3_K:
            return {108};
        case DType::Q6_K:
            return {208};
        default:
            return {0};  // Q4_0, Q5_0, Q8_0, IQ4_NL, IQ4_XS
    }
}

std::vector<uint8_t> random_blocks(DType t, int blocks, std::mt19937& gen, const std::vector<float>& scales) {
    const int block_bytes = dtype_block_bytes(t);
    std::vector<uint8_t> bytes(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(block_bytes));
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<std::size_t> pick(0, scales.size() - 1);
    for (auto& x : bytes) x = static_cast<uint8_t>(byte(gen));
    for (int b = 0; b < blocks; ++b)
        for (int off : f16_scale_offsets(t)) {
            const uint16_t v = f32_to_f16(scales[pick(gen)]);
            std::memcpy(bytes.data() + static_cast<std::size_t>(b) * block_bytes + off, &v, sizeof v);
        }
    return bytes;
}

}  // namespace snapdoc::testing
