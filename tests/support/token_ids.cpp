#include "tests/support/token_ids.h"

#include <random>

namespace snapdoc::testing {

std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> ids(n);
    for (auto& x : ids) x = 3 + static_cast<int32_t>(rng() % (vocab - 3));
    return ids;
}

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

GenerationRequest greedy_request(int n) {
    GenerationRequest r;
    r.max_new_tokens = n;
    r.sampling.temperature = 0;
    r.stop_at_eos = false;
    return r;
}

}  // namespace snapdoc::testing
