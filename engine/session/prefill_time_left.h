// The time left of a running prefill (issue 23, item 18). Before the prefill the probe predicts
// it (prefill_estimate.h), but on a loaded machine the probe ran 28-100% short and on the 93K
// sample 21% long. So the probe's figure only stands until the first chunks are timed; from then
// on the time left comes from the measured rate of cost-weighted progress over a recent window,
// which also follows the machine's load as it changes during the prefill.
#pragma once

#include <vector>

namespace snapdoc {

class PrefillTimeLeft {
public:
    struct Options {
        // Chunks observed before the measured rate replaces the probe: the first chunk's interval
        // carries start-up costs (allocation, cold caches) and is never part of the rate.
        int chunks_before_correction = 3;
        // The rate is measured over the most recent part of the run (at least min_window_seconds),
        // so a change of load shows within a fraction of the time already spent.
        double window_fraction = 0.3;
        double min_window_seconds = 2.0;
    };

    // probe_seconds < 0: no probe ran (a short document); the time left waits for measurements.
    explicit PrefillTimeLeft(double probe_seconds = -1) : PrefillTimeLeft(probe_seconds, Options{}) {}
    PrefillTimeLeft(double probe_seconds, Options options) : probe_(probe_seconds), options_(options) {}

    // One chunk done: `fraction` of the prefill's work (cost-weighted) after `elapsed` seconds.
    void observe(double fraction, double elapsed_seconds);
    // Seconds left after the latest observation; < 0 while unknown.
    double remaining() const;
    // The predicted total (elapsed + remaining); < 0 while unknown.
    double total() const;
    // True once the figure comes from the measured rate rather than the probe.
    bool corrected() const;

private:
    struct Sample {
        double fraction;
        double elapsed;
    };
    double measured_rate() const;  // fraction per second over the recent window; <= 0 when unknown

    double probe_;
    Options options_;
    std::vector<Sample> samples_;
};

}  // namespace snapdoc
