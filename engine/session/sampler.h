// Token sampling from a row of logits: greedy, temperature, top-k, top-p, min-p and repetition
// penalty, with a seeded generator so a run can be reproduced exactly.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace snapdoc {

struct SamplingParams {
    float temperature = 0.0f;        // <= 0: greedy (argmax)
    int top_k = 40;                  // <= 0: disabled
    float top_p = 0.95f;             // >= 1: disabled
    float min_p = 0.05f;             // <= 0: disabled; keeps tokens with p >= min_p * p_max
    float repetition_penalty = 1.0f; // 1: disabled (CTRL-style: positive logits / p, negative * p)
    int repetition_window = 64;      // how many recent tokens the penalty looks at
    uint64_t seed = 0;               // fixed seed => identical output

    // Throws Error naming the bad field (negative temperature, top_p outside (0,1], ...).
    void validate() const;
};

class Sampler {
public:
    explicit Sampler(const SamplingParams& params);
    // Picks the next token. `logits` may be modified (penalties, scaling). `history` is the token
    // sequence so far (prompt + generated) for the repetition penalty.
    int32_t sample(std::span<float> logits, std::span<const int32_t> history);
    const SamplingParams& params() const { return params_; }

private:
    SamplingParams params_;
    std::mt19937_64 rng_;
    std::vector<int32_t> candidates_;  // reused between calls
};

// Index of the largest value (lowest index on ties) — greedy decoding.
int32_t argmax(std::span<const float> values);

}  // namespace snapdoc
