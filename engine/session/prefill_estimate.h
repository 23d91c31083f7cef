// "Know before you wait" (issue 15): how long a document prefill will take on this machine, with
// this model and backend, predicted from a short measured probe before the prefill starts.
//
// Cost model of one layer over `rows` rows starting at `depth` (row i attends over depth + i + 1
// keys):   seconds = per_row · rows + per_pair · attention_pairs(rows, depth)
// per_row is the weights' part (projections, FFN: linear in tokens), per_pair the attention part
// (quadratic over a prefill). The probe times one layer on a few hundred rows at depth 0 and at
// about half the document's depth (the mean depth of a prefill, so the prediction is nearly an
// interpolation), fits both coefficients and sums the model over every layer. It costs a bounded
// share of the prefill it predicts (counted in rows and attention pairs, not guessed).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/runtime/backend.h"

namespace snapdoc {

// Keys visible to rows at positions [depth, depth + rows), summed: rows·depth + rows·(rows+1)/2.
inline int64_t attention_pairs(int64_t rows, int64_t depth) {
    return rows * depth + rows * (rows + 1) / 2;
}

struct PrefillCostModel {
    double per_row = 0;   // seconds per row per layer
    double per_pair = 0;  // seconds per (row, visible key) pair per layer

    double chunk_seconds(int64_t rows, int64_t depth) const {
        return per_row * static_cast<double>(rows) + per_pair * static_cast<double>(attention_pairs(rows, depth));
    }
    // A layer-major prefill of `tokens` through `n_layers` layers (chunking does not change the sum).
    double prefill_seconds(int64_t tokens, int n_layers) const { return n_layers * chunk_seconds(tokens, 0); }
    // Share of that work done once `layers_done` layers and `rows_done` rows of the next are done.
    double fraction_done(int64_t tokens, int n_layers, int layers_done, int64_t rows_done) const;
};

// Relative costs from the model's shape in FLOPs (no timing): the progress weights to use when
// nothing was measured. Only the ratio per_pair / per_row means anything.
PrefillCostModel flop_cost_model(const ModelConfig& cfg);

struct ProbeSample {
    int64_t rows = 0;
    int64_t depth = 0;
    double seconds = 0;
};

// Least-squares fit of per_row and per_pair (both kept >= 0) to timed samples. Needs samples at
// two or more depths to separate the parts; with one depth the time is put on per_row.
PrefillCostModel fit_prefill_cost(std::span<const ProbeSample> samples);

struct PrefillProbeOptions {
    // Shorter documents are not probed: they prefill in seconds, and a probe small enough to stay
    // cheap next to them would be too small to time well.
    int min_tokens = 2048;
    // The probe's rows and attention pairs each stay below this share of the prefill's.
    double max_cost_fraction = 0.02;
    int max_rows = 512;  // rows per timed run (the session's chunk size)
    int min_rows = 64;   // below this the runs are too short to time; the probe is skipped
    int repeats = 2;     // runs per depth; the fastest counts (noise on a shared machine only adds time)
};

struct PrefillEstimate {
    bool measured = false;    // false: the document is too short to be worth a probe
    int tokens = 0;
    double seconds = 0;       // the predicted prefill time
    double probe_seconds = 0; // wall time of the probe itself
    PrefillCostModel model;
    std::vector<ProbeSample> samples;
    // What the probe ran, to bound its cost against the prefill's
    // (tokens · n_layers rows, n_layers · attention_pairs(tokens, 0) pairs).
    int64_t probe_rows = 0;
    int64_t probe_pairs = 0;
    int64_t probe_layer_calls = 0;
};

// Runs the probe on `backend` (layer 0; every layer has the same shape) with the document's first
// tokens and predicts the prefill of all of `tokens`. Leaves no state behind in the backend.
PrefillEstimate estimate_prefill(Backend& backend, std::span<const int32_t> tokens,
                                 const PrefillProbeOptions& options = {});

// "about 1 min 40 s", "about 12 s", "under a second", "about 2 h 5 min".
std::string format_duration(double seconds);

// The time left while the prefill runs: prefill_time_left.h (the probe, corrected from chunk timings).

}  // namespace snapdoc
