#include "engine/kv/pooling.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace snapdoc {

void pool_1d(std::span<const float> in, std::span<float> out, int kernel, Pooling pooling) {
    const int64_t n = static_cast<int64_t>(in.size());
    const int64_t r = kernel / 2;
    if (pooling == Pooling::Avg) {
        // Running sum over the window [i - r, i + r]; positions outside contribute zero.
        double sum = 0;
        for (int64_t j = 0; j <= std::min(r, n - 1); ++j) sum += in[j];
        for (int64_t i = 0; i < n; ++i) {
            out[i] = static_cast<float>(sum / kernel);
            const int64_t add = i + r + 1, drop = i - r;
            if (add < n) sum += in[add];
            if (drop >= 0) sum -= in[drop];
        }
        return;
    }
    // Max: monotonic deque gives O(n) for any kernel (kernels can exceed the prefix length).
    std::deque<int64_t> dq;
    int64_t next = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t hi = std::min(n - 1, i + r);
        for (; next <= hi; ++next) {
            while (!dq.empty() && in[dq.back()] <= in[next]) dq.pop_back();
            dq.push_back(next);
        }
        while (dq.front() < i - r) dq.pop_front();
        out[i] = in[dq.front()];
    }
}

}  // namespace snapdoc
