// The bandwidth probes the benchmarks divide by (engine/runtime/cpu/hardware_probe.h). No timing is
// asserted (a shared machine makes any threshold flaky); what is checked is that the stream probe
// reads what it is given, whole 64 KiB pieces only, and answers 0 rather than dividing by nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/runtime/cpu/hardware_probe.h"

namespace snapdoc {
namespace {

TEST(HardwareProbe, StreamBandwidthReadsWholePiecesAndAnswersZeroForTooLittle) {
    std::vector<uint8_t> buf((std::size_t{4} << 20) + 100, 0x5A);  // 4 MiB and a tail it skips
    for (int threads : {1, 2}) {
        const double gbs = cpu::measure_stream_gbs(buf.data(), buf.size(), threads, 0.01);
        EXPECT_TRUE(std::isfinite(gbs)) << threads;
        EXPECT_GT(gbs, 0.0) << threads;
    }
    EXPECT_EQ(cpu::measure_stream_gbs(buf.data(), (std::size_t{64} << 10) - 1, 2, 0.01), 0.0);
    EXPECT_GT(cpu::measure_read_bandwidth_gbs(2, 0.01), 0.0);
}

}  // namespace
}  // namespace snapdoc
