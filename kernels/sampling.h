// Token sampling on the device, so a decode step needs no logits download: greedy argmax, and
// temperature / top-k / min-p / top-p with a counter-based random generator. One block per call
// (the vocabulary is a few hundred KB; it stays in L2 between the passes).
//
// Semantics follow engine/session/sampler.cpp (Sampler::sample without the repetition penalty,
// which the device path does not implement): NaN logits never win and count as -inf; +inf after
// the temperature scaling is clamped to the largest float; top-k keeps the k best by (logit
// descending, index ascending), exactly k; min-p keeps weights >= min_p x the largest; top-p keeps
// the smallest prefix in that order whose mass reaches top_p. Greedy picks exactly the host's
// argmax. The random stream is NOT the host's: the host sampler draws from a seeded mt19937_64 in
// call order, the device draws sampling_uniform(seed, counter) where the counter is a device value
// (the decode step passes the token's position), so a seeded run on the device is reproducible on
// the device, but samples (unlike greedy tokens) differ from the host sampler's.
#pragma once

#include <cstdint>

#include "kernels/types.h"

namespace snapdoc::kernels {

// Index of the largest of n values, lowest index on ties; NaN never wins; all NaN (or n == 0)
// gives 0 — engine/session/sampler.h's argmax(). `out`: one device int32.
cudaError_t argmax(const float* values, int n, int32_t* out, cudaStream_t stream);

struct DeviceSamplingParams {
    float temperature = 0.0f;  // <= 0: greedy
    int top_k = 0;             // <= 0: disabled
    float top_p = 1.0f;        // >= 1: disabled
    float min_p = 0.0f;        // <= 0: disabled
    uint64_t seed = 0;
};

// Picks one token from `logits` [vocab] (device, not modified) and writes it to out[0] (device),
// or -1 when every logit is -inf or NaN (the host sampler throws there; the caller reports it).
// `counter` (device int32) selects the random draw: sampling_uniform(seed, *counter).
cudaError_t sample_token(const float* logits, int vocab, const DeviceSamplingParams& params, const int32_t* counter,
                         int32_t* out, cudaStream_t stream);

// The uniform number in [0, 1) sample_token draws for (seed, counter): the top 53 bits of a
// SplitMix64 hash of both. Host function (tests predict draws with it).
double sampling_uniform(uint64_t seed, int32_t counter);

// Fixed-point scale of the sampling weights exp(x - max) in (0, 1]: the masses of the top-p cut
// and of the draw are summed as integers, so the result does not depend on the order in which
// threads add (a float atomic sum would make seeded runs irreproducible).
inline constexpr double kSamplingWeightScale = 1099511627776.0;  // 2^40

}  // namespace snapdoc::kernels
