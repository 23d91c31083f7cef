// NaN/Inf in weights (a corrupt or badly converted file) used to give finite, silently different
// logits: attention treats a NaN score like a masked one. A cheap load pass checks every small
// float tensor (norm weights, biases: one row each, a few KB) and names the first bad one; big
// float matrices are left to the first forward's logits check (prefill), since scanning them would
// page in the whole model at load.
// Block-quantized tensors (any size) are checked at load by their f16 scales: a block's values are
// its scales times small integers, so they are all finite iff its scales are. That reads one or
// two f16 per block (2-4 bytes of 18-210), a sequential pass the first forward would page in anyway;
// a NaN scale used to make every logit exactly 0.0 (the activation quantizer hid it).
#pragma once

#include "engine/model/model.h"

namespace snapdoc {

// Throws FormatError "<model>: tensor <name> holds NaN or Inf (element i)" for the first 1-D
// weight (or, with `include_matrices`, any weight) that is not finite.
void check_finite_weights(const Model& model, bool include_matrices = false);

// For a block-quantized `t`: the index of the first block with a NaN or Inf scale (d, and the min
// or dmin of the types that have one), or -1 when all are finite. -1 for float types.
int64_t first_non_finite_block_scale(const TensorView& t);

// Whether every value of `t` decodes to a finite float; `*bad_index` gets the first that does not.
bool tensor_is_finite(const TensorView& t, int64_t* bad_index = nullptr);

}  // namespace snapdoc
