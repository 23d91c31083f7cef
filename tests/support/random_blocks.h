// Random bytes shaped as blocks of a GGML block type, with the f16 scale fields set to chosen
// values (so tests can cover extreme, negative and zero scales without NaN/inf by accident).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc::testing {

// Byte offsets of the f16 scale fields (d, and dmin / m where the type has one) inside a block.
std::vector<int> f16_scale_offsets(DType t);

// `blocks` blocks of random bytes whose f16 scale fields each hold one of `scales` (drawn at random).
std::vector<uint8_t> random_blocks(DType t, int blocks, std::mt19937& gen, const std::vector<float>& scales);

}  // namespace snapdoc::testing
