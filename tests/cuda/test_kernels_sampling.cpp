// Device sampling (kernels/sampling.h) against the host sampler (engine/session/sampler.h): greedy
// picks exactly the host's argmax (ties to the lowest id, NaN never wins, nothing valid -> the
// host's error); temperature / top-k / min-p / top-p draw only from the set the host's rules
// allow, in roughly the right proportions, and a seeded run repeats itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "engine/common/error.h"
#include "engine/session/sampler.h"
#include "kernels/sampling.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

using namespace cudatest;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

class SamplingKernel : public ::testing::Test {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

int32_t device_argmax(const std::vector<float>& v) {
    auto d = to_device(v.empty() ? std::vector<float>{0.0f} : v);
    auto out = to_device(std::vector<int32_t>{-7});
    cuda::check(kernels::argmax(d.as<float>(), static_cast<int>(v.size()), out.as<int32_t>(), nullptr), "argmax");
    return from_device<int32_t>(out.get(), 1)[0];
}

int32_t device_sample(const cuda::DeviceBuffer& logits, int vocab, const kernels::DeviceSamplingParams& p, int32_t counter) {
    auto c = to_device(std::vector<int32_t>{counter});
    auto out = to_device(std::vector<int32_t>{-7});
    cuda::check(kernels::sample_token(logits.as<float>(), vocab, p, c.as<int32_t>(), out.as<int32_t>(), nullptr), "sample");
    return from_device<int32_t>(out.get(), 1)[0];
}

std::vector<std::vector<float>> argmax_cases() {
    std::vector<std::vector<float>> cases;
    cases.push_back({1.0f});
    cases.push_back({3.0f, 3.0f, 3.0f});                      // all tied: id 0
    cases.push_back({1.0f, 5.0f, 2.0f, 5.0f, 5.0f});          // tie: the lowest of the maxima
    cases.push_back({kNaN, 2.0f, kNaN, 7.0f, 7.0f, kNaN});    // NaN never wins
    cases.push_back({kNaN, kNaN, kNaN});                      // all NaN: 0, as the host
    cases.push_back({-kInf, -kInf, -3.0f});
    cases.push_back({-kInf, -kInf});
    cases.push_back({1.0f, kInf, 2.0f, kInf});
    cases.push_back({-0.0f, 0.0f});                           // equal values: the lower id
    std::mt19937 rng(3);
    for (int n : {31, 512, 513, 5000, 32000}) {
        std::vector<float> v = random_floats(static_cast<std::size_t>(n), static_cast<uint32_t>(n), 4.0f);
        // Ties of the maximum far apart, around block strides, and NaN sprinkled in.
        const float top = *std::max_element(v.begin(), v.end()) + 1.0f;
        for (int k = 0; k < 3; ++k) v[rng() % n] = top;
        for (int k = 0; k < n / 10; ++k) v[rng() % n] = kNaN;
        cases.push_back(v);
    }
    return cases;
}

TEST_F(SamplingKernel, ArgmaxEqualsTheHostArgmaxWithTiesAndNaN) {
    for (const auto& v : argmax_cases()) EXPECT_EQ(device_argmax(v), argmax(v)) << "n = " << v.size();
    EXPECT_EQ(device_argmax({}), argmax(std::vector<float>{}));
}

// Greedy sample_token is Sampler::sample at temperature 0: the same id, and where the host throws
// (nothing but -inf and NaN) the device answers -1.
TEST_F(SamplingKernel, GreedyEqualsTheHostSampler) {
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    for (auto v : argmax_cases()) {
        auto d = to_device(v);
        const int32_t got = device_sample(d, static_cast<int>(v.size()), kernels::DeviceSamplingParams{}, 0);
        Sampler host(greedy);
        std::vector<float> row = v;
        bool host_threw = false;
        int32_t want = -1;
        try {
            want = host.sample(row, {});
        } catch (const Error&) {
            host_threw = true;
        }
        if (host_threw) EXPECT_EQ(got, -1) << "n = " << v.size();
        else EXPECT_EQ(got, want) << "n = " << v.size();
    }
}

// The host's allowed set for temperature/top-k/min-p/top-p (sampler.cpp's rules, in double):
// `slack` widens the top-p cut by that much probability mass either way (rounding at the edge).
std::set<int32_t> allowed_set(const std::vector<float>& logits, const kernels::DeviceSamplingParams& p, double slack) {
    std::vector<int32_t> c;
    for (int i = 0; i < static_cast<int>(logits.size()); ++i)
        if (!std::isnan(logits[i]) && logits[i] != -kInf) c.push_back(i);
    auto higher = [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
    std::sort(c.begin(), c.end(), higher);
    if (p.top_k > 0 && p.top_k < static_cast<int>(c.size())) c.resize(p.top_k);
    const double m = logits[c.front()] / p.temperature;
    std::vector<double> w;
    for (int32_t i : c) w.push_back(std::exp(logits[i] / p.temperature - m));
    if (p.min_p > 0.0f) {
        std::vector<int32_t> keep;
        std::vector<double> kw;
        for (std::size_t j = 0; j < c.size(); ++j)
            if (w[j] >= p.min_p) {
                keep.push_back(c[j]);
                kw.push_back(w[j]);
            }
        c = keep;
        w = kw;
    }
    std::size_t n = c.size();
    if (p.top_p < 1.0f) {
        const double total = std::accumulate(w.begin(), w.end(), 0.0);
        const double target = (p.top_p + slack) * total;
        double cum = 0.0;
        n = 0;
        while (n < c.size()) {
            cum += w[n++];
            if (cum >= target) break;
        }
    }
    return {c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n)};
}

struct SampleCase {
    const char* name;
    kernels::DeviceSamplingParams p;
};

TEST_F(SamplingKernel, DrawsOnlyFromTheAllowedSet) {
    const int vocab = 3000;
    std::vector<float> logits = random_floats(vocab, 11, 3.0f);
    // Ties straddling the top-k cut (settled by id, as the host does), NaN and -inf entries.
    std::vector<int32_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
    for (int j = 8; j < 14; ++j) logits[order[j]] = logits[order[8]];
    for (int i = 0; i < vocab; i += 97) logits[i] = kNaN;
    for (int i = 5; i < vocab; i += 101) logits[i] = -kInf;
    auto d = to_device(logits);

    std::vector<SampleCase> cases;
    auto make = [](float t, int k, float top_p, float min_p) {
        kernels::DeviceSamplingParams p;
        p.temperature = t;
        p.top_k = k;
        p.top_p = top_p;
        p.min_p = min_p;
        p.seed = 42;
        return p;
    };
    cases.push_back({"top_k 10 (cut inside a tie)", make(1.0f, 10, 1.0f, 0.0f)});
    cases.push_back({"top_k 1", make(0.7f, 1, 1.0f, 0.0f)});
    cases.push_back({"top_p 0.5", make(1.0f, 0, 0.5f, 0.0f)});
    cases.push_back({"top_p 0.9 temperature 2", make(2.0f, 0, 0.9f, 0.0f)});
    cases.push_back({"min_p 0.2", make(1.0f, 0, 1.0f, 0.2f)});
    cases.push_back({"top_k 40 top_p 0.95 min_p 0.05 (defaults)", make(0.8f, 40, 0.95f, 0.05f)});
    for (const auto& sc : cases) {
        const std::set<int32_t> allowed = allowed_set(logits, sc.p, 1e-6);
        std::set<int32_t> seen;
        for (int c = 0; c < 150; ++c) {
            const int32_t t = device_sample(d, vocab, sc.p, c);
            EXPECT_TRUE(allowed.count(t)) << sc.name << ": token " << t << " at counter " << c;
            seen.insert(t);
        }
        if (allowed.size() > 3) EXPECT_GT(seen.size(), 2u) << sc.name;  // it does draw, not always the best
    }
    // No cut at all: every valid token may come; a NaN or -inf one never.
    const auto all = make(1.0f, 0, 1.0f, 0.0f);
    for (int c = 0; c < 100; ++c) {
        const int32_t t = device_sample(d, vocab, all, c);
        ASSERT_TRUE(t >= 0 && t < vocab);
        EXPECT_FALSE(std::isnan(logits[t]) || logits[t] == -kInf);
    }
}

TEST_F(SamplingKernel, ProportionsFollowTheSoftmax) {
    // p = softmax(log(0.5), log(0.3), log(0.2)) = 0.5 / 0.3 / 0.2, plus tokens top-k drops.
    std::vector<float> logits = {std::log(0.3f), -1e9f, std::log(0.5f), std::log(0.2f), -1e9f};
    auto d = to_device(logits);
    kernels::DeviceSamplingParams p;
    p.temperature = 1.0f;
    p.top_k = 3;
    p.seed = 7;
    std::vector<int> count(logits.size(), 0);
    const int n = 1500;
    for (int c = 0; c < n; ++c) ++count[device_sample(d, 5, p, c)];
    EXPECT_EQ(count[1] + count[4], 0);
    EXPECT_NEAR(count[2] / double(n), 0.5, 0.05);
    EXPECT_NEAR(count[0] / double(n), 0.3, 0.05);
    EXPECT_NEAR(count[3] / double(n), 0.2, 0.05);
}

TEST_F(SamplingKernel, SeededRunsRepeatAndSeedsDiffer) {
    const int vocab = 700;
    auto d = to_device(random_floats(vocab, 5, 1.0f));
    kernels::DeviceSamplingParams p;
    p.temperature = 1.0f;
    p.top_k = 0;
    p.top_p = 0.98f;
    p.seed = 123;
    std::vector<int32_t> a, b, other;
    for (int c = 100; c < 140; ++c) a.push_back(device_sample(d, vocab, p, c));
    for (int c = 100; c < 140; ++c) b.push_back(device_sample(d, vocab, p, c));
    p.seed = 124;
    for (int c = 100; c < 140; ++c) other.push_back(device_sample(d, vocab, p, c));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
    // The draw is the documented function of (seed, counter).
    EXPECT_EQ(kernels::sampling_uniform(9, 3), kernels::sampling_uniform(9, 3));
    EXPECT_NE(kernels::sampling_uniform(9, 3), kernels::sampling_uniform(9, 4));
    const double u = kernels::sampling_uniform(1, 1);
    EXPECT_TRUE(u >= 0.0 && u < 1.0);
}

TEST_F(SamplingKernel, NothingValidGivesMinusOne) {
    std::vector<float> bad = {kNaN, -kInf, kNaN};
    auto d = to_device(bad);
    kernels::DeviceSamplingParams p;
    p.temperature = 0.9f;
    p.top_k = 2;
    EXPECT_EQ(device_sample(d, 3, p, 0), -1);
    EXPECT_EQ(device_sample(d, 3, kernels::DeviceSamplingParams{}, 0), -1);
}

}  // namespace
}  // namespace snapdoc
