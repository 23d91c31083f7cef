// Running a loaded model on the CPU backend the way forward-pass tests compare it with the
// reference: every position's logits of one prompt, and the relative difference of two such runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/model/model.h"
#include "engine/runtime/backend.h"

namespace snapdoc::testing {

// A CPU backend with the exact f32 attention cache (--kv-f32) and `o`'s other options: for tests
// held to a float reference or to another path at 1e-4, below f16's rounding of every K and V
// (the product's default cache, which the modelzoo and f16-cache tests cover).
std::unique_ptr<Backend> exact_cpu_backend(const Model& m, BackendOptions o = {});

// Logits [T, vocab] of `ids` at positions 0..T-1, prefilled in `chunk`-row chunks over a full KV
// cache by a CPU backend with `threads` threads, `backend_chunk` internal rows and context size
// `context` (0: the model's declared context); `exact_prefill` as BackendOptions::exact_prefill.
// The cache is the exact f32 one (exact_cpu_backend).
std::vector<float> engine_logits(const Model& m, const std::vector<int32_t>& ids, int threads = 2,
                                 int chunk = 512, int backend_chunk = 512, int context = 0,
                                 bool exact_prefill = false);

// Largest |a-b| relative to the largest |b| (logits of random models are O(1)).
template <typename A, typename B>
double max_rel_diff(const std::vector<A>& a, const std::vector<B>& b) {
    double md = 0, mb = 1e-12;
    for (std::size_t i = 0; i < b.size(); ++i) {
        md = std::max(md, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
        mb = std::max(mb, std::fabs(static_cast<double>(b[i])));
    }
    return md / mb;
}

}  // namespace snapdoc::testing
