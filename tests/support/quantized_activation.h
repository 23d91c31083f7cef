// Activation rows quantized to 8 bits in one ActFormat (quant_activation.h), in 64-byte aligned
// storage as MatMul keeps them (ActBlock256Nibbles is declared alignas(64)): what the tests hand to
// the decode dot kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::testing {

class QuantizedActivation {
public:
    using Quantizer = void (*)(cpu::ActFormat, const float*, void*, int64_t);
    // `quantize`: quantize_activation, or quantize_activation_portable to compare the two.
    QuantizedActivation(cpu::ActFormat format, const float* x, int rows, int64_t in,
                        Quantizer quantize = cpu::quantize_activation)
        : stride_(cpu::act_row_bytes(format, in)), lines_((stride_ * static_cast<std::size_t>(rows) + 63) / 64) {
        for (int i = 0; i < rows; ++i) quantize(format, x + i * in, bytes() + i * stride_, in);
    }
    const uint8_t* row(int i) const { return reinterpret_cast<const uint8_t*>(lines_.data()) + i * stride_; }
    std::size_t stride() const { return stride_; }
    // Every byte of the storage (padding zero-filled), for byte-for-byte comparisons.
    std::vector<uint8_t> bytes_copy() const { return {row(0), row(0) + lines_.size() * sizeof(Line)}; }

private:
    struct alignas(64) Line {
        uint8_t bytes[64];
    };
    uint8_t* bytes() { return reinterpret_cast<uint8_t*>(lines_.data()); }

    std::size_t stride_;
    std::vector<Line> lines_;
};

}  // namespace snapdoc::testing
