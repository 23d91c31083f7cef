// Small pieces shared by the benchmarks that time document sessions.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/stopwatch.h"
#include "engine/kv/selection.h"
#include "engine/model/mapped_file.h"
#include "engine/session/document_session.h"

namespace snapdoc::bench {

using Clock = std::chrono::steady_clock;

// The median of a non-empty sample (the upper one of the middle two for an even count).
double median(std::vector<double> v);

// Seeded pseudo-random ids in [3, vocab): a timing input that never hits the usual control ids.
std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed);

// Greedy decoding of `tokens` tokens on `selection` (no stop at end-of-sequence); tokens per second.
double decode_tps(DocumentSession& session, const Selection& selection, int tokens);

// What one decoded token must read from memory, from a GGUF file's tensor table (any tensor type,
// loadable or not): every weight tensor once, the token embedding only when the output projection
// is tied to it (otherwise one row of it), and K and V of every layer per cached position.
struct DecodeBytes {
    std::shared_ptr<const MappedFile> file;  // the file's mapping (a stream over it measures bandwidth)
    uint64_t weights = 0;
    int64_t kv_values_per_position = 0;  // layers × KV heads × (key + value length)
    // At `context` positions with K/V of `kv_value_bytes` each (2: f16, the issue-25 roofline).
    double per_token(double context, int kv_value_bytes) const {
        return static_cast<double>(weights) + static_cast<double>(kv_values_per_position) * kv_value_bytes * context;
    }
};
DecodeBytes decode_bytes(const std::string& gguf_path);

}  // namespace snapdoc::bench
