// llama.cpp-quantized GGUFs (../shared/fixtures/modelzoo/spm-llama-tiny: Q4_K_M mixes Q4_K and
// Q6_K as a real 7B/8B download does — Q4_K token embeddings, Q6_K output, one layer's V and FFN
// down in Q6_K — and Q4_0 with a Q6_K output) on the CUDA backend with their blocks kept on
// the device: the logits of the short prompt against the float64 reference with exactly
// dequantized weights (ref-<variant>.json), both through the decode GEMV (chunks of one token) and
// the prefill tiles (the whole prompt in one chunk).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/runtime/cuda/device_weights.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/fixtures.h"

namespace snapdoc {
namespace {

using namespace cudatest;

// The f16 K/V budget of test_cuda_fixtures (largest logit difference from an exact computation
// that f16 rounding of K/V, and here of the prefill tiles and their inputs, may cause). llama.cpp
// itself is 0.37 off the reference on Q4_K_M (its 8-bit activations).
constexpr double kMaxLogitDiff = 0.05;

class CudaZooBlocks : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaZooBlocks, BlocksOnTheDeviceMatchTheExactReference) {
    SNAPDOC_REQUIRE_CUDA();
    const std::string variant = GetParam();
    const std::string dir = "modelzoo/spm-llama-tiny/";
    const std::string gguf = dir + "spm-llama-tiny-" + variant + ".gguf";
    SNAPDOC_REQUIRE_FIXTURE(gguf);
    const Model model = load_model(fixture_path(gguf));
    ASSERT_EQ(cuda_unsupported_feature(model), "");

    // Every matrix stays in its file blocks: the device holds the file's tensor bytes.
    const int64_t device = cuda::device_weight_bytes(model, kernels::Dt::F16);
    EXPECT_EQ(device, model.weight_bytes());
    const std::string formats = cuda::device_weight_formats(model, kernels::Dt::F16);
    EXPECT_EQ(formats.find("F16"), std::string::npos) << formats;  // nothing widened
    std::printf("[ zoo-blocks ] %s: %s, %.2f MiB on the device (widened to F16: %.2f MiB)\n", variant.c_str(),
                formats.c_str(), device / 1048576.0,
                cuda::device_weight_bytes(model, kernels::Dt::F16, false) / 1048576.0);

    const nlohmann::json ref = nlohmann::json::parse(read_text_file(fixture_path(dir + "ref-" + variant + ".json")));
    const nlohmann::json& s = ref.at("short");
    const auto ids = s.at("prompt_ids").get<std::vector<int32_t>>();
    const nlohmann::json& top10 = s.at("top10");
    ASSERT_EQ(top10.size(), ids.size());
    const int vocab = model.config.vocab_size;
    auto gpu = make_cuda_backend(model);
    for (int chunk : {1, static_cast<int>(ids.size())}) {
        const auto logits = prefill_logits(*gpu, ids, chunk);
        double worst = 0;
        for (std::size_t p = 0; p < ids.size(); ++p)
            for (const auto& entry : top10[p]) {
                const double e = std::fabs(logits[p * vocab + entry[0].get<int>()] - entry[1].get<double>());
                worst = std::max(worst, e);
                EXPECT_LT(e, kMaxLogitDiff) << variant << " chunk " << chunk << " position " << p;
            }
        std::printf("[ zoo-blocks ] %s chunk %d: max |cuda - exact| over the top-10s %.4g\n", variant.c_str(), chunk,
                    worst);
    }
}

// Q8_0 blocks are covered by the tiny models of test_cuda_block_weights (and test_cuda_backend).
INSTANTIATE_TEST_SUITE_P(Variants, CudaZooBlocks, ::testing::Values("Q4_K_M", "Q4_0"));

}  // namespace
}  // namespace snapdoc
