#include "engine/session/prefill_estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/session/prefill.h"

namespace snapdoc {

double PrefillCostModel::fraction_done(int64_t tokens, int n_layers, int layers_done, int64_t rows_done) const {
    const double layer = chunk_seconds(tokens, 0);
    const double total = layer * n_layers;
    if (!(total > 0)) return n_layers > 0 ? std::clamp(static_cast<double>(layers_done) / n_layers, 0.0, 1.0) : 0.0;
    // Rows [0, rows_done) of a layer are exactly the chunks run so far, whatever their size.
    const double done = layer * layers_done + chunk_seconds(std::clamp<int64_t>(rows_done, 0, tokens), 0);
    return std::clamp(done / total, 0.0, 1.0);
}

PrefillCostModel flop_cost_model(const ModelConfig& c) {
    // Multiply-adds per row: Q, K, V, O projections and the SwiGLU FFN (gate, up, down). Per
    // (row, key) pair: Q·K and P·V over every query head.
    const double proj = static_cast<double>(c.dim) * (2.0 * c.q_dim() + 2.0 * c.kv_dim());
    const double ffn = 3.0 * c.dim * static_cast<double>(c.ffn_dim);
    PrefillCostModel m;
    m.per_row = 2.0 * (proj + ffn);
    m.per_pair = 4.0 * c.n_heads * static_cast<double>(c.head_dim);
    return m;
}

PrefillCostModel fit_prefill_cost(std::span<const ProbeSample> samples) {
    // Minimise Σ (per_row·r + per_pair·p − t)² over the samples (normal equations, in double).
    double rr = 0, rp = 0, pp = 0, rt = 0, pt = 0;
    for (const ProbeSample& s : samples) {
        const double r = static_cast<double>(s.rows), p = static_cast<double>(attention_pairs(s.rows, s.depth));
        rr += r * r;
        rp += r * p;
        pp += p * p;
        rt += r * s.seconds;
        pt += p * s.seconds;
    }
    PrefillCostModel m;
    if (rr <= 0) return m;
    const double det = rr * pp - rp * rp;
    // Samples at one depth only (or depths too close to tell apart): all of the time is per row.
    if (det <= 1e-9 * rr * pp) {
        m.per_row = std::max(0.0, rt / rr);
        return m;
    }
    m.per_row = (rt * pp - pt * rp) / det;
    m.per_pair = (pt * rr - rt * rp) / det;
    // Noise can push one part below zero; refit the other alone, never predict negative time.
    if (m.per_row < 0) {
        m.per_row = 0;
        m.per_pair = std::max(0.0, pt / pp);
    } else if (m.per_pair < 0) {
        m.per_pair = 0;
        m.per_row = std::max(0.0, rt / rr);
    }
    return m;
}

PrefillEstimate estimate_prefill(Backend& backend, std::span<const int32_t> tokens, const PrefillProbeOptions& o) {
    const ModelConfig& cfg = backend.config();
    const int64_t D = static_cast<int64_t>(tokens.size());
    const int L = cfg.n_layers;
    PrefillEstimate est;
    est.tokens = static_cast<int>(D);
    if (D < std::max(1, o.min_tokens) || L < 1) return est;

    // Rows per run: the session's chunk size, unless that would make the probe's rows a larger
    // share of the prefill's (D·L rows) than allowed.
    const int runs = 2 * std::max(1, o.repeats);
    const double row_budget = o.max_cost_fraction * static_cast<double>(D) * L;
    int rows = static_cast<int>(std::min<double>(o.max_rows, std::floor(row_budget / runs)));
    rows -= rows % 16;
    if (rows < o.min_rows) return est;
    // The deep runs sit at about half the document's depth, capped by the attention-pair budget.
    const double pair_budget = o.max_cost_fraction * static_cast<double>(L) * static_cast<double>(attention_pairs(D, 0));
    const int repeats = std::max(1, o.repeats);
    const double deep_pairs_each =
        (pair_budget - repeats * static_cast<double>(attention_pairs(rows, 0))) / repeats;
    int64_t depth = std::min<int64_t>(D / 2, D - static_cast<int64_t>(rows) * repeats);
    if (deep_pairs_each > 0) {
        // pairs(rows, depth + k·rows) for the k-th repeat <= deep_pairs_each, for the last repeat.
        const double cap = (deep_pairs_each - static_cast<double>(attention_pairs(rows, 0))) / rows -
                           static_cast<double>(repeats - 1) * rows;
        depth = std::min<int64_t>(depth, static_cast<int64_t>(std::max(0.0, cap)));
    } else {
        depth = 0;
    }
    if (depth < 2 * rows) return est;  // too shallow to tell attention from the weights

    const auto t_probe = SteadyClock::now();
    const int kvh = cfg.n_kv_heads, hd = cfg.head_dim;
    auto act = backend.create_activations(rows);
    std::vector<int32_t> pos(rows);
    std::vector<float> sync_k(hd), sync_v(hd);
    auto timed_run = [&](KvCache& cache, int64_t at) {
        backend.embed(tokens.data(), rows, *act, 0);
        std::iota(pos.begin(), pos.end(), static_cast<int32_t>(at));
        const auto t0 = SteadyClock::now();
        backend.run_layer(0, *act, 0, rows, pos.data(), cache, nullptr);
        // Reading one entry back waits for an asynchronous backend (a GPU stream) to finish.
        backend.read_kv(cache, 0, 0, static_cast<int>(at + rows - 1), 1, sync_k.data(), sync_v.data());
        const double s = seconds_since(t0);
        est.probe_rows += rows;
        est.probe_pairs += attention_pairs(rows, at);
        est.probe_layer_calls++;
        return ProbeSample{rows, at, s};
    };

    // Shallow: a fresh cache per run, so every run is at depth 0 (the first also warms up).
    ProbeSample shallow{rows, 0, 1e300};
    for (int r = 0; r < repeats; ++r) {
        auto cache = make_layer_kv_cache(backend, 0, rows);
        const ProbeSample s = timed_run(*cache, 0);
        if (s.seconds < shallow.seconds) shallow = s;
    }
    // Deep: `depth` stand-in keys (their values do not change the work), then runs on top of them.
    ProbeSample deep{rows, depth, 1e300};
    {
        auto cache = make_layer_kv_cache(backend, 0, static_cast<int>(depth + static_cast<int64_t>(rows) * repeats));
        constexpr int kBlock = 4096;
        std::vector<float> zeros(static_cast<std::size_t>(kBlock) * hd, 0.0f);
        std::vector<int32_t> fill_pos(kBlock);
        for (int64_t p0 = 0; p0 < depth; p0 += kBlock) {
            const int n = static_cast<int>(std::min<int64_t>(kBlock, depth - p0));
            std::iota(fill_pos.begin(), fill_pos.begin() + n, static_cast<int32_t>(p0));
            for (int h = 0; h < kvh; ++h) backend.append_kv(*cache, 0, h, fill_pos.data(), n, zeros.data(), zeros.data());
        }
        for (int r = 0; r < repeats; ++r) {
            const ProbeSample s = timed_run(*cache, depth + static_cast<int64_t>(r) * rows);
            if (s.seconds < deep.seconds) deep = s;
        }
    }
    est.samples = {shallow, deep};
    est.model = fit_prefill_cost(est.samples);
    est.seconds = est.model.prefill_seconds(D, L);
    est.probe_seconds = seconds_since(t_probe);
    est.measured = true;
    return est;
}

std::string format_duration(double seconds) {
    if (!(seconds >= 1)) return "under a second";
    char buf[64];
    const long s = std::lround(seconds);
    if (s < 60) {
        std::snprintf(buf, sizeof buf, "about %ld s", s);
    } else if (s < 3600) {
        // Seconds matter less the longer the wait: 5 s steps under 10 min, whole minutes above.
        if (s < 600) {
            const long r = (s + 2) / 5 * 5;
            if (r % 60 == 0)
                std::snprintf(buf, sizeof buf, "about %ld min", r / 60);
            else
                std::snprintf(buf, sizeof buf, "about %ld min %ld s", r / 60, r % 60);
        } else {
            std::snprintf(buf, sizeof buf, "about %ld min", (s + 30) / 60);
        }
    } else {
        const long m = (s + 30) / 60;
        if (m % 60 == 0)
            std::snprintf(buf, sizeof buf, "about %ld h", m / 60);
        else
            std::snprintf(buf, sizeof buf, "about %ld h %ld min", m / 60, m % 60);
    }
    return buf;
}

}  // namespace snapdoc
