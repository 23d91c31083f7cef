// The time left of a running prefill (issue 23, item 18): with chunk timings injected, the probe's
// figure is replaced by the measured rate after the first chunks, whichever way the probe was off,
// and the figure follows a change of machine load during the prefill.
#include <gtest/gtest.h>

#include "engine/session/prefill_time_left.h"

namespace snapdoc {
namespace {

// Feeds `chunks` equal chunks of work, each taking `seconds_per_chunk`, from (fraction, elapsed).
void run_chunks(PrefillTimeLeft& eta, double& fraction, double& elapsed, int chunks, double work_per_chunk,
                double seconds_per_chunk) {
    for (int i = 0; i < chunks; ++i) {
        fraction += work_per_chunk;
        elapsed += seconds_per_chunk;
        eta.observe(fraction, elapsed);
    }
}

TEST(PrefillTimeLeft, BeforeTheFirstChunksTheProbeStands) {
    PrefillTimeLeft eta(100);
    EXPECT_FALSE(eta.corrected());
    EXPECT_DOUBLE_EQ(eta.remaining(), 100);
    eta.observe(0.0, 0.0);  // the start carries no rate
    eta.observe(0.01, 3.0);
    EXPECT_FALSE(eta.corrected());
    EXPECT_DOUBLE_EQ(eta.remaining(), 97);
    EXPECT_LT(PrefillTimeLeft().remaining(), 0);  // no probe, nothing measured: unknown
}

TEST(PrefillTimeLeft, TheMeasuredRateCorrectsAProbeThatWasOff) {
    // 100 chunks of 1.5 s: the prefill really takes 150 s. A probe 33% short (as seen under load)
    // and one 33% long (as on the 93K sample) are both corrected once three chunks are timed.
    for (double probe : {100.0, 200.0}) {
        PrefillTimeLeft eta(probe);
        double f = 0, t = 0;
        // The first chunk is slow (start-up costs) and is left out of the rate.
        f += 0.01;
        t += 6.0;
        eta.observe(f, t);
        run_chunks(eta, f, t, 2, 0.01, 1.5);
        ASSERT_TRUE(eta.corrected()) << probe;
        const double truth_left = 0.97 * 150;
        EXPECT_NEAR(eta.remaining(), truth_left, 1e-6) << probe;
        // And it stays right to the end, without the probe pulling it back.
        run_chunks(eta, f, t, 50, 0.01, 1.5);
        EXPECT_NEAR(eta.remaining(), (1 - f) * 150, 1e-6) << probe;
    }
}

TEST(PrefillTimeLeft, FollowsTheMachineLoadAsItChanges) {
    PrefillTimeLeft eta(100);
    double f = 0, t = 0;
    run_chunks(eta, f, t, 40, 0.01, 1.0);  // 1 s per chunk: 100 s in all at this pace
    EXPECT_NEAR(eta.remaining(), 60, 1e-6);
    // Another job starts: each chunk now takes 3 s. The cumulative average (61% faster than now)
    // would promise far too little; the recent window follows the new pace.
    run_chunks(eta, f, t, 20, 0.01, 3.0);
    const double now_pace_left = (1 - f) * 300;
    const double cumulative_left = (1 - f) * (t / f);
    EXPECT_NEAR(eta.remaining(), now_pace_left, 1e-6);
    EXPECT_GT(eta.remaining(), 1.5 * cumulative_left);
    // The load goes away again: back to 1 s per chunk, and the figure comes back near that pace
    // (the window still holds a little of the slow part).
    run_chunks(eta, f, t, 30, 0.01, 1.0);
    EXPECT_GT(eta.remaining(), (1 - f) * 100 - 1e-6);
    EXPECT_LT(eta.remaining(), 1.25 * (1 - f) * 100);
}

TEST(PrefillTimeLeft, DoneMeansNothingLeft) {
    PrefillTimeLeft eta(10);
    double f = 0, t = 0;
    run_chunks(eta, f, t, 3, 1.0 / 3, 1.0);
    EXPECT_NEAR(eta.remaining(), 0, 1e-9);
    EXPECT_NEAR(eta.total(), 3, 1e-9);
}

}  // namespace
}  // namespace snapdoc
