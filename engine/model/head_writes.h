// Which attention heads can change what the model computes. A head whose slice of the output
// projection (wo's columns h*head_dim .. (h+1)*head_dim) is all zero writes nothing into the
// residual stream, so where it looks is no evidence of what an answer drew on: citations leave such
// heads out (engine/session/citations.h). Trained checkpoints have none; the bundled demo model's
// display-only role heads are exactly that (docs/demo_model.md, "Head roles").
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model.h"

namespace snapdoc {

// Layer-major n_layers × n_heads flags, 1 where the head writes; empty when every head writes (the
// common case, decided from the first bytes of each head's slice). Read from the bytes as stored: a
// block of zero bytes is zero in every format (F32/F16/BF16 +0, block scales 0); a head whose slice
// shares quantization blocks with another head, or any non-zero byte, counts as writing.
std::vector<uint8_t> heads_that_write(const ModelConfig& config, const ModelWeights& weights);

}  // namespace snapdoc
