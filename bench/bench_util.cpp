#include "bench/bench_util.h"

#include <algorithm>
#include <random>

namespace snapdoc::bench {

std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> ids(n);
    for (auto& x : ids) x = 3 + static_cast<int32_t>(rng() % (vocab - 3));
    return ids;
}

double decode_tps(DocumentSession& session, const Selection& selection, int tokens) {
    GenerationRequest r;
    r.max_new_tokens = tokens;
    r.sampling.temperature = 0;
    r.stop_at_eos = false;
    const auto a = session.answer(selection, r);
    return (a.tokens.size() - 1) / std::max(1e-9, a.decode_seconds);
}

}  // namespace snapdoc::bench
