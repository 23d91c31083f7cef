// The second 8-bit plane of an activation row: what the first quantization (quant_activation.h) left
// over, quantized again in the same format. The matmuls multiply both planes with the weights in
// the same integer kernels and add the two results, so an activation carries about 15 bits (the
// residual is at most half a step of the first plane, and its own step is 1/127 of that) where
// one plane's 8 bits made the integer prefill and the decode dots as far from the exact logits as
// llama.cpp (which rounds to 8 bits the same way): docs/RESULTS.md, "Activation precision".
// Integer products stay exact, and every kernel level reads the same bytes.
#pragma once

#include <cstdint>

#include "engine/runtime/cpu/quant_activation.h"

namespace snapdoc::cpu {

// r[i] = x[i] − d·q[i] for the row `act` quantized from x in format f (n values). Computed in double,
// where d·q (24 + 7 significant bits) and the difference are exact, then rounded once to float: the
// same bytes whatever the compiler contracts or vectorises. A non-finite block's d is NaN, so its
// residual is NaN and the second plane keeps the NaN (quantize_activation).
void activation_residual(ActFormat f, const float* x, const void* act, float* r, int64_t n);

}  // namespace snapdoc::cpu
