// Included last by the row dequantizers: ggml computes `d * q - m` and friends with two roundings
// (no fused multiply-add), and contracting them into an FMA — which GCC does by default even in ISO
// mode when the target has FMA — would change the last bit of the results, and the golden checksums
// of ggml's own dequantization would no longer match. Applies to the rest of the including file.
#pragma once

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
