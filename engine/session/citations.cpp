#include "engine/session/citations.h"

#include <algorithm>
#include <numeric>

#include "engine/common/error.h"
#include "engine/session/citation_salience.h"

namespace snapdoc {

void accumulate_answer_attention(std::span<const float> layer_scores, int n_heads, int doc_len, int n_layers,
                                 int sink_tokens, std::vector<float>& acc, std::span<const uint8_t> head_writes) {
    if (n_heads < 1 || n_layers < 1 || doc_len < 0) throw Error("citations: bad shape");
    if (layer_scores.size() != static_cast<std::size_t>(n_heads) * doc_len)
        throw Error("citations: layer scores have the wrong size");
    if (!head_writes.empty() && head_writes.size() != static_cast<std::size_t>(n_heads))
        throw Error("citations: head flags have the wrong size");
    acc.resize(doc_len, 0.0f);
    const int first = std::clamp(sink_tokens, 0, doc_len);
    for (int h = 0; h < n_heads; ++h) {
        if (!head_writes.empty() && !head_writes[h]) continue;
        const float* s = layer_scores.data() + static_cast<std::size_t>(h) * doc_len;
        double total = 0;
        for (int p = first; p < doc_len; ++p) total += s[p];
        if (total <= 0) continue;  // a head that looked only at the sinks, the turns or the answer
        // Each head hands out one unit over the document: a head that reads the document weakly
        // still says where it read; no head's raw attention mass dominates.
        const double w = 1.0 / (total * n_heads * n_layers);
        for (int p = first; p < doc_len; ++p) acc[p] += static_cast<float>(s[p] * w);
    }
}

std::vector<Citation> find_citations(std::span<const float> attention, const CitationOptions& o,
                                     std::span<const uint8_t> sentence_end) {
    const int n = static_cast<int>(attention.size());
    if (o.smooth_kernel < 1 || o.smooth_kernel % 2 == 0) throw Error("citations: the smoothing kernel must be odd");
    if (!sentence_end.empty() && static_cast<int>(sentence_end.size()) != n)
        throw Error("citations: sentence bounds have the wrong size");
    std::vector<Citation> out;
    if (n == 0 || o.max_citations <= 0) return out;
    double total = 0;
    for (float a : attention) total += a;
    if (total <= 0) return out;

    // Moving average (zero padding), so one sharp token and its neighbours read as one place.
    const int r = o.smooth_kernel / 2;
    std::vector<double> prefix(n + 1, 0.0);
    for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + attention[i];
    std::vector<float> smooth(n);
    for (int i = 0; i < n; ++i)
        smooth[i] = static_cast<float>((prefix[std::min(n, i + r + 1)] - prefix[std::max(0, i - r)]) / o.smooth_kernel);
    const float top = *std::max_element(smooth.begin(), smooth.end());
    const float cut = o.threshold * top;

    // Runs above the cut, merged across small gaps; each remembers its strongest stretch.
    // The sinks (BOS, template opening) are never cited: smoothing spreads their neighbours into them.
    const int first = std::clamp(o.sink_tokens, 0, n);
    const int max_len = std::max(1, o.max_passage);
    std::vector<std::pair<int, int>> runs;
    std::vector<float> peaks;
    std::vector<int> peak_at;
    for (int i = first; i < n; ++i) {
        if (smooth[i] < cut || smooth[i] <= 0) continue;
        if (!runs.empty() && i - runs.back().second <= o.merge_gap) {
            runs.back().second = i;
            if (smooth[i] > peaks.back()) peaks.back() = smooth[i], peak_at.back() = i;
        } else {
            runs.push_back({i, i});
            peaks.push_back(smooth[i]);
            peak_at.push_back(i);
        }
    }
    // Diffuse attention above the cut nearly everywhere merges into one run across the whole
    // document, which cites nothing: a run longer than max_passage keeps the max_passage tokens
    // around its peak.
    for (std::size_t k = 0; k < runs.size(); ++k) {
        auto& [a, b] = runs[k];
        if (b - a + 1 <= max_len) continue;
        a = std::clamp(peak_at[k] - max_len / 2, a, b - max_len + 1);
        b = a + max_len - 1;
    }
    // Grown to sentence bounds (a passage reads as whole sentences), within max_passage.
    if (!sentence_end.empty()) {
        // First, what only the moving average put there: a run that crosses a sentence end by at
        // most the smoothing radius, away from its peak, stops at that end (else "…is 4877. In"
        // would grow into the whole next sentence, which the answer did not read).
        for (std::size_t k = 0; k < runs.size(); ++k) {
            auto& [a, b] = runs[k];
            for (int e = b - 1; !sentence_end[b] && e >= std::max(a, b - r); --e)
                if (sentence_end[e] && e >= peak_at[k]) {
                    b = e;
                    break;
                }
            for (int e = a; a > 0 && !sentence_end[a - 1] && e < std::min(b, a + r); ++e)
                if (sentence_end[e] && e < peak_at[k]) {
                    a = e + 1;
                    break;
                }
        }
        for (auto& [a, b] : runs) {
            const int limit = std::max(max_len, b - a + 1);
            int lo = a, hi = b;
            while (lo > first && !sentence_end[lo - 1] && hi - lo + 1 < limit) --lo;
            while (hi < n - 1 && !sentence_end[hi] && hi - lo + 1 < limit) ++hi;
            a = lo;
            b = hi;
        }
        // Growing can make neighbours overlap or touch: merge again.
        std::vector<std::pair<int, int>> merged;
        std::vector<float> merged_peaks;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            if (!merged.empty() && runs[k].first <= merged.back().second + 1) {
                const int end = std::max(merged.back().second, runs[k].second);
                if (end - merged.back().first + 1 <= max_len) {
                    merged.back().second = end;
                    merged_peaks.back() = std::max(merged_peaks.back(), peaks[k]);
                    continue;
                }
                // Merging would pass max_passage: the later passage starts after the earlier one.
                runs[k].first = merged.back().second + 1;
                if (runs[k].first > runs[k].second) continue;
                merged.push_back(runs[k]);
                merged_peaks.push_back(peaks[k]);
            } else {
                merged.push_back(runs[k]);
                merged_peaks.push_back(peaks[k]);
            }
        }
        runs.swap(merged);
        peaks.swap(merged_peaks);
    }
    // Ranked by the strongest stretch, not by total mass: heads that park attention diffusely
    // (often near the end of the document, right before the question) make wide low plateaus whose
    // mass can exceed a sharp passage's; the sharp one is what the answer read.
    std::vector<std::size_t> order(runs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return peaks[x] > peaks[y]; });
    // The background: the mean per-token attention over the scored positions.
    const double mean = (prefix[n] - prefix[first]) / std::max(1, n - first);
    for (std::size_t k : order) {
        const auto [a, b] = runs[k];
        Citation c{a, b, (prefix[b + 1] - prefix[a]) / total};
        c.lift = mean > 0 ? peaks[k] / mean : 0;
        out.push_back(c);
    }
    out = salient_citations(std::move(out), o.min_lift);
    if (static_cast<int>(out.size()) > o.max_citations) out.resize(o.max_citations);
    return out;
}

}  // namespace snapdoc
