#include "engine/session/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

[[noreturn]] void bad_param(const char* name, double value, const char* rule) {
    std::ostringstream msg;
    msg << "invalid sampling parameter " << name << "=" << value << ": " << rule;
    throw Error(msg.str());
}

// Uniform double in [0, 1) from the top 53 bits of one raw engine output. std::uniform_real_distribution
// is implementation-defined (libstdc++ and libc++ consume the engine differently), whereas
// mt19937_64's raw output is fixed by the standard, so this keeps seeded runs identical everywhere.
double uniform01(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// NaN cannot be ordered, so it would break the comparators below (and argmax); a NaN logit carries
// no information, so it is treated as "never pick this token".
void sanitize_nan(std::span<float> logits) {
    for (float& x : logits) {
        if (std::isnan(x)) x = kNegInf;
    }
}

// CTRL-style penalty (Keskar et al. 2019): dividing a positive logit / multiplying a negative one
// by the penalty always moves it towards "less likely" for penalty > 1. Each distinct token is
// penalised once however often it occurs, so frequent tokens are not pushed down exponentially.
// `scratch` is the sampler's candidate buffer, borrowed here to deduplicate without allocating.
void apply_repetition_penalty(std::span<float> logits, std::span<const int32_t> history, float penalty,
                              int window, std::vector<int32_t>& scratch) {
    if (penalty == 1.0f || window <= 0 || history.empty()) return;
    const size_t n = std::min(history.size(), static_cast<size_t>(window));
    scratch.assign(history.end() - static_cast<std::ptrdiff_t>(n), history.end());
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    const auto vocab = static_cast<int64_t>(logits.size());
    for (int32_t tok : scratch) {
        // A history id outside this vocabulary cannot be penalised; it is not worth failing a
        // generation over a heuristic.
        if (tok < 0 || tok >= vocab) continue;
        float& x = logits[static_cast<size_t>(tok)];
        x = x > 0.0f ? x / penalty : x * penalty;
    }
}

}  // namespace

void SamplingParams::validate() const {
    if (!std::isfinite(temperature) || temperature < 0.0f)
        bad_param("temperature", temperature, "must be a finite number >= 0 (0 = greedy)");
    if (top_k < 0) bad_param("top_k", top_k, "must be >= 0 (0 = disabled)");
    if (!(top_p > 0.0f && top_p <= 1.0f)) bad_param("top_p", top_p, "must be in (0, 1] (1 = disabled)");
    if (!(min_p >= 0.0f && min_p < 1.0f)) bad_param("min_p", min_p, "must be in [0, 1) (0 = disabled)");
    if (!std::isfinite(repetition_penalty) || repetition_penalty <= 0.0f)
        bad_param("repetition_penalty", repetition_penalty, "must be a finite number > 0 (1 = disabled)");
    if (repetition_window < 0) bad_param("repetition_window", repetition_window, "must be >= 0");
}

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) {
    params_.validate();
}

int32_t argmax(std::span<const float> values) {
    // NaN never wins (every comparison with it is false); all-NaN or empty input gives 0.
    int32_t best = 0;
    bool found = false;
    for (size_t i = 0; i < values.size(); ++i) {
        const float v = values[i];
        if (std::isnan(v)) continue;
        if (!found || v > values[static_cast<size_t>(best)]) {
            best = static_cast<int32_t>(i);
            found = true;
        }
    }
    return best;
}

int32_t Sampler::sample(std::span<float> logits, std::span<const int32_t> history) {
    if (logits.empty()) throw Error("sampler: empty logits row");
    if (logits.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        throw Error("sampler: vocabulary too large for int32 token ids");

    sanitize_nan(logits);
    apply_repetition_penalty(logits, history, params_.repetition_penalty, params_.repetition_window,
                             candidates_);

    // A row with nothing finite or +inf left means the model produced garbage (NaN/-inf
    // everywhere); emitting some arbitrary token would hide that bug, so it is an error.
    auto no_valid_token = [] { return Error("sampler: every logit is -inf or NaN; no token can be chosen"); };

    if (params_.temperature <= 0.0f) {
        const int32_t best = argmax(logits);
        if (logits[static_cast<size_t>(best)] == kNegInf) throw no_valid_token();
        return best;
    }

    const float inv_t = 1.0f / params_.temperature;
    candidates_.clear();
    candidates_.reserve(logits.size());
    for (size_t i = 0; i < logits.size(); ++i) {
        float x = logits[i] * inv_t;
        // +inf (from the model, or from scaling a huge logit by a small temperature) would make
        // the softmax inf - inf = NaN. Clamping to the largest finite float gives the same
        // limit: the +inf tokens share all the probability, equally.
        if (x == std::numeric_limits<float>::infinity()) x = std::numeric_limits<float>::max();
        logits[i] = x;
        if (x != kNegInf) candidates_.push_back(static_cast<int32_t>(i));
    }
    if (candidates_.empty()) throw no_valid_token();

    // Total order (higher logit first, then lower index) so that the kept set and its order do
    // not depend on the standard library's nth_element/sort details: seeded runs must match.
    auto higher = [&logits](int32_t a, int32_t b) {
        const float la = logits[static_cast<size_t>(a)];
        const float lb = logits[static_cast<size_t>(b)];
        return la > lb || (la == lb && a < b);
    };

    bool sorted = false;
    if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < candidates_.size()) {
        // O(V) selection; only the k survivors are sorted, O(k log k).
        const auto kth = candidates_.begin() + params_.top_k;
        std::nth_element(candidates_.begin(), kth - 1, candidates_.end(), higher);
        candidates_.resize(static_cast<size_t>(params_.top_k));
        std::sort(candidates_.begin(), candidates_.end(), higher);
        sorted = true;
    } else if (params_.top_p < 1.0f) {
        // Nucleus sampling needs the candidates in probability order; without top-k this is the
        // one O(V log V) path.
        std::sort(candidates_.begin(), candidates_.end(), higher);
        sorted = true;
    }
    // Otherwise the candidates stay in index order, which is just as deterministic.

    // Softmax over the candidates, written back into `logits` (the caller allowed modification)
    // so no second buffer is needed. Sums in double: with a 32K+ vocabulary float sums drift.
    float max_logit = kNegInf;
    for (int32_t c : candidates_) max_logit = std::max(max_logit, logits[static_cast<size_t>(c)]);
    double total = 0.0;
    float max_p = 0.0f;
    for (int32_t c : candidates_) {
        float& x = logits[static_cast<size_t>(c)];
        x = std::exp(x - max_logit);
        total += x;
        max_p = std::max(max_p, x);
    }

    // min-p (relative to the most likely token). Unnormalised weights are fine: the threshold is a
    // ratio. The most likely token always passes, so at least one survives. remove_if keeps the
    // survivors' order and does not allocate.
    if (params_.min_p > 0.0f) {
        const float threshold = params_.min_p * max_p;
        const auto keep_end = std::remove_if(candidates_.begin(), candidates_.end(), [&](int32_t c) {
            return logits[static_cast<size_t>(c)] < threshold;
        });
        candidates_.erase(keep_end, candidates_.end());
        total = 0.0;
        for (int32_t c : candidates_) total += logits[static_cast<size_t>(c)];
    }

    // top-p: the smallest prefix (in probability order) whose mass reaches top_p. The first token
    // is always kept, so a tiny top_p degenerates to greedy.
    if (params_.top_p < 1.0f) {
        if (!sorted) std::sort(candidates_.begin(), candidates_.end(), higher);
        const double target = static_cast<double>(params_.top_p) * total;
        double cum = 0.0;
        size_t keep = 0;
        while (keep < candidates_.size()) {
            cum += logits[static_cast<size_t>(candidates_[keep])];
            ++keep;
            if (cum >= target) break;
        }
        candidates_.resize(keep);
        total = cum;
    }

    // Inverse-CDF draw over the surviving weights.
    const double u = uniform01(rng_) * total;
    double cum = 0.0;
    for (int32_t c : candidates_) {
        cum += logits[static_cast<size_t>(c)];
        if (u < cum) return c;
    }
    // Unreachable: `total` is the same sequential sum as the final `cum` and u < total. Kept so
    // the function cannot fall off the end if that invariant is ever broken by an edit.
    return candidates_.back();
}

}  // namespace snapdoc
