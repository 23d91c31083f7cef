// SnapKV's clustering step: 1-D pooling over the prefix positions with stride 1 and 'same' padding
// (kernel/2 on each side). Avg pads with zeros that count in the divisor (PyTorch avg_pool1d with
// count_include_pad=True); max pads with -inf.
#pragma once

#include <span>

#include "engine/kv/snapkv_config.h"

namespace snapdoc {

// out.size() == in.size(); kernel must be odd.
void pool_1d(std::span<const float> in, std::span<float> out, int kernel, Pooling pooling);

}  // namespace snapdoc
