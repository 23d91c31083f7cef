#include "bench/longctx_memory_plan.h"

#include <algorithm>
#include <cstdio>

namespace snapdoc::bench {

namespace {
// engine/runtime/cuda/cuda_check.cpp keeps this much free on every predicted allocation.
constexpr int64_t kBackendReserve = int64_t{256} << 20;
}  // namespace

int64_t LongPromptPlan::longest_prompt(int64_t free_bytes) const {
    const int64_t room = free_bytes - reserve - slack;
    return room > 0 ? room / per_token() : 0;
}

LongPromptPlan long_prompt_plan(const ModelConfig& c, int64_t free_bytes) {
    LongPromptPlan p;
    p.activations_per_token = int64_t{c.dim} * 4;
    p.layer_kv_per_token = int64_t{c.n_kv_heads} * (int64_t{c.head_dim} * 2 * 2 + 4);
    p.scores_per_token = int64_t{c.n_heads} * 4;
    p.store_per_token = int64_t{c.n_layers} * c.kv_dim() * 2 * 2;
    p.reserve = kBackendReserve;
    // Buffers a call grows (window queries, split-KV partials, staging): a percent of the device
    // and 64 MiB, so a check run at the predicted length is not refused by a rounding.
    p.slack = std::max<int64_t>(free_bytes / 100, 0) + (int64_t{64} << 20);
    return p;
}

std::string bytes_text(int64_t bytes) {
    char b[32];
    if (bytes >= (int64_t{1} << 30) || bytes <= -(int64_t{1} << 30))
        std::snprintf(b, sizeof b, "%.2f GiB", static_cast<double>(bytes) / (int64_t{1} << 30));
    else
        std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return b;
}

}  // namespace snapdoc::bench
