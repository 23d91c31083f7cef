// NaN/Inf in weights (a corrupt or badly converted file) used to give finite, silently different
// logits: attention treats a NaN score like a masked one. A cheap load pass checks every small
// tensor (norm weights, biases: one row each, a few KB) and names the first bad one; big matrices
// are left to the first forward's logits check (prefill), since scanning them would page in the
// whole model at load.
#pragma once

#include "engine/model/model.h"

namespace snapdoc {

// Throws FormatError "<model>: tensor <name> holds NaN or Inf (element i)" for the first 1-D
// weight (or, with `include_matrices`, any weight) that is not finite.
void check_finite_weights(const Model& model, bool include_matrices = false);

// Whether every value of `t` decodes to a finite float; `*bad_index` gets the first that does not.
bool tensor_is_finite(const TensorView& t, int64_t* bad_index = nullptr);

}  // namespace snapdoc
