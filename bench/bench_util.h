// Small pieces shared by the benchmarks that time document sessions.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/common/stopwatch.h"
#include "engine/kv/selection.h"
#include "engine/session/document_session.h"

namespace snapdoc::bench {

using Clock = std::chrono::steady_clock;

// Seeded pseudo-random ids in [3, vocab): a timing input that never hits the usual control ids.
std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed);

// Greedy decoding of `tokens` tokens on `selection` (no stop at end-of-sequence); tokens per second.
double decode_tps(DocumentSession& session, const Selection& selection, int tokens);

}  // namespace snapdoc::bench
