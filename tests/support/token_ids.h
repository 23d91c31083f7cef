// Small helpers for tests that drive sessions with made-up prompts: seeded random token ids,
// concatenation, and a greedy request that ignores EOS (so lengths are fixed).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/session/generate.h"

namespace snapdoc::testing {

// `n` ids in [3, vocab) from a seeded stream (0..2 are left out: unk/bos/eos in the tiny models).
std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed);
std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b);
// Greedy decoding of exactly `n` tokens.
GenerationRequest greedy_request(int n);

}  // namespace snapdoc::testing
