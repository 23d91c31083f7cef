// The GPU benchmark (`snapdoc-bench cuda-longctx`, bench/cuda_longctx_bench.cpp) at tiny shapes and a
// few hundred tokens on the emulated device: every row of the issue-13 table comes out, in the
// results file, with numbers (the peak both with the document's K/V kept on the GPU, as the re-snap
// runs, and for the staged plan of a 24 GB card, each pass's store mode in the log); and the longest prompt predicted from the memory plan is allocated and
// started for real without being refused (the emulated device is shrunk so that prompt is ~50K
// tokens, and the check run is stopped after 2 s).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/benches.h"
#include "cuda_emu/control.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

std::string run_bench(std::vector<std::string> args, const std::filesystem::path& results) {
    args.insert(args.begin(), {"snapdoc-bench", "cuda-longctx"});
    args.push_back("--results");
    args.push_back(results.string());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    EXPECT_EQ(bench::bench_cuda_longctx(static_cast<int>(argv.size()), argv.data()), 0);
    std::ifstream in(results);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The value column of the row whose measurement starts with `what` ("" when there is none).
std::string value_of(const std::string& table, const std::string& what) {
    std::istringstream in(table);
    for (std::string line; std::getline(in, line);) {
        const auto bar = line.find(" | ");
        if (bar == std::string::npos || line.compare(bar + 3, what.size(), what) != 0) continue;
        const auto start = line.find(" | ", bar + 3);
        const auto end = line.find(" | ", start + 3);
        return line.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
    }
    return "";
}

double first_number(const std::string& s) {
    std::smatch m;
    return std::regex_search(s, m, std::regex(R"([0-9]+(\.[0-9]+)?)")) ? std::stod(m.str()) : -1.0;
}

class EmuBenchCudaLongctx : public ::testing::Test {
protected:
    void SetUp() override { saved = cuda_emu::device_config(); }
    void TearDown() override { ASSERT_TRUE(cuda_emu::set_device_config(saved)); }
    cuda_emu::DeviceConfig saved;
    testing::TempDir dir;
};

TEST_F(EmuBenchCudaLongctx, Q4kmShapeWritesEveryRowAndThePredictedPromptFits) {
    cuda_emu::DeviceConfig small = saved;
    small.memory_bytes = cuda_emu::memory_stats().allocated + (int64_t{400} << 20);
    ASSERT_TRUE(cuda_emu::set_device_config(small));
    const std::string t = run_bench({"--shape", "tiny-q4km", "--context", "320", "--budget", "64", "--window", "8",
                                     "--question", "16", "--gen-tokens", "4", "--fit-seconds", "2"},
                                    dir / "q4km.txt");
    SCOPED_TRACE(t);
    EXPECT_NE(t.find("snapdoc-bench cuda-longctx --shape tiny-q4km --context 320"), std::string::npos);
    EXPECT_NE(value_of(t, "model").find("Q4_K"), std::string::npos);
    EXPECT_NE(value_of(t, "model").find("Q6_K"), std::string::npos);  // the Q4_K_M mix's head and more-bits layers
    EXPECT_GT(first_number(value_of(t, "prefill 320 tokens")), 0.0);
    EXPECT_NE(value_of(t, "prefill 320 tokens").find("tok/s"), std::string::npos);
    EXPECT_GT(first_number(value_of(t, "decode @320, SnapKV-64")), 0.0);
    EXPECT_GT(first_number(value_of(t, "decode @320, full KV")), 0.0);
    EXPECT_GT(first_number(value_of(t, "re-snap: 2nd question TTFT @320")), 0.0);
    // The re-snap runs with the default store: 320 tokens' K/V fit on the device, so they stay there.
    EXPECT_NE(value_of(t, "re-snap: 2nd question TTFT @320").find("K/V store on GPU"), std::string::npos);
    EXPECT_NE(t.find("# default store mode: document K/V store: full K/V on the GPU"), std::string::npos);
    EXPECT_GT(first_number(value_of(t, "peak device memory @320, K/V store on GPU")), 0.0);
    // The staged plan: the model loaded again with keep_full_kv_on_device = false, a whole prefill +
    // re-snap through the staging slots, and its own peak row with the 24 GB target.
    EXPECT_NE(t.find("# staged plan: model loaded again with keep_full_kv_on_device = false"), std::string::npos);
    EXPECT_NE(t.find("# staged plan: document K/V store: full K/V in "), std::string::npos);
    EXPECT_NE(t.find("kept off the GPU by keep_full_kv_on_device = false"), std::string::npos);
    const std::string staged = value_of(t, "peak device memory @320, staged plan");
    EXPECT_GT(first_number(staged), 0.0);
    EXPECT_NE(staged.find("prefill + re-snap"), std::string::npos) << staged;
    EXPECT_NE(t.find("| <= 22 GB (a 24 GB card)"), std::string::npos);
    EXPECT_NE(value_of(t, "plan for a 24 GB card @320"), "");
    // ~70 MiB above the reserve and slack at ~1.5 KiB per token: tens of thousands of tokens.
    const double predicted = first_number(value_of(t, "longest prompt that fits (predicted)"));
    EXPECT_GT(predicted, 20000);
    EXPECT_LT(predicted, 100000);
    const std::string checked = value_of(t, "longest prompt that fits (checked)");
    EXPECT_EQ(first_number(checked), predicted);
    EXPECT_TRUE(checked.find("allocated and ran") != std::string::npos || checked.find("completed") != std::string::npos)
        << checked;
    EXPECT_EQ(checked.find("refused"), std::string::npos);
}

TEST_F(EmuBenchCudaLongctx, Bf16ShapePrefillAndDecodeRowsAppendToTheFile) {
    const auto file = dir / "bf16.txt";
    run_bench({"--shape", "tiny-bf16", "--context", "200", "--budget", "32", "--window", "4", "--question", "8",
               "--gen-tokens", "3", "--measure", "prefill,decode"},
              file);
    const std::string t = run_bench({"--shape", "tiny-bf16", "--context", "300", "--budget", "32", "--window", "4",
                                     "--question", "8", "--gen-tokens", "3", "--measure", "prefill"},
                                    file);
    SCOPED_TRACE(t);
    EXPECT_GT(first_number(value_of(t, "decode @200, SnapKV-32")), 0.0);
    EXPECT_GT(first_number(value_of(t, "prefill 200 tokens")), 0.0);
    EXPECT_GT(first_number(value_of(t, "prefill 300 tokens")), 0.0);  // the second run appended
    EXPECT_EQ(value_of(t, "decode @300, SnapKV-32"), "");
    EXPECT_EQ(value_of(t, "re-snap"), "");
    EXPECT_EQ(value_of(t, "peak device memory @200, staged plan"), "");
    EXPECT_EQ(value_of(t, "longest prompt"), "");
}

TEST_F(EmuBenchCudaLongctx, StagedAloneRunsOnTheFirstBackend) {
    // Only the staged row: the model is loaded once, already with keep_full_kv_on_device = false.
    const std::string t = run_bench({"--shape", "tiny-bf16", "--context", "200", "--budget", "32", "--window", "4",
                                     "--question", "8", "--gen-tokens", "3", "--measure", "staged"},
                                    dir / "staged.txt");
    SCOPED_TRACE(t);
    EXPECT_NE(value_of(t, "peak device memory @200, staged plan").find("prefill + re-snap"), std::string::npos);
    EXPECT_NE(t.find("kept off the GPU by keep_full_kv_on_device = false"), std::string::npos);
    EXPECT_EQ(t.find("model loaded again"), std::string::npos);
    EXPECT_EQ(value_of(t, "prefill 200 tokens"), "");
    EXPECT_EQ(value_of(t, "peak device memory @200, K/V store"), "");
}

}  // namespace
}  // namespace snapdoc
