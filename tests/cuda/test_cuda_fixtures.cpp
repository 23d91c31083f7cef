// End to end on the real stories260K model (../shared/fixtures): the CUDA backend reproduces the
// reference implementation's greedy text. The model is tiny, so its F32 weights stay F32 on the GPU
// and only the f16 KV cache differs from the CPU path (llama.cpp, whose default KV cache is f16,
// reproduces the same text, per the fixture's README). Logits are also compared with the CPU.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/model/model.h"
#include "engine/session/generate.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/fixtures.h"

namespace snapdoc {
namespace {

using namespace cudatest;

std::vector<int32_t> expected_ids() {
    std::ifstream in(fixture_path("stories260K/expected-greedy-200.ids"));
    std::vector<int32_t> ids;
    int v;
    while (in >> v) ids.push_back(v);
    return ids;
}

class CudaStories : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        SNAPDOC_REQUIRE_FIXTURE("stories260K/stories260K.gguf");
    }
};

TEST_P(CudaStories, GreedyDecodingReproducesReferenceText) {
    const Model model = load_model(fixture_path(GetParam()));
    EXPECT_EQ(cuda_weight_dtype(model), DType::F32);
    auto backend = make_cuda_backend(model);
    GenerationRequest req;
    req.prompt = {model.config.bos_id};
    req.max_new_tokens = 200;
    req.sampling.temperature = 0.0f;
    req.stop_at_eos = false;
    const auto tokens = generate(*backend, req).tokens;
    const auto expected = expected_ids();
    ASSERT_EQ(expected.size(), 201u);
    EXPECT_EQ(tokens, std::vector<int32_t>(expected.begin() + 1, expected.end()));
    const Tokenizer tok = Tokenizer::from_model(model);
    EXPECT_EQ(tok.decode(tokens), read_text_file(fixture_path("stories260K/expected-greedy-200.txt")));
}

TEST_P(CudaStories, LogitsMatchCpu) {
    const Model model = load_model(fixture_path(GetParam()));
    auto cpu = make_cpu_backend(model);
    auto gpu = make_cuda_backend(model);
    const auto ids = expected_ids();
    const auto want = prefill_logits(*cpu, ids, 64);
    const auto got = prefill_logits(*gpu, ids, 64);
    std::printf("stories260K cuda vs cpu: NMSE %.3g, max |logit diff| %.5f\n", nmse(got, want), max_abs_diff(got, want));
    EXPECT_LT(max_abs_diff(got, want), 0.02);
    EXPECT_EQ(argmax_agreement(got, want, model.config.vocab_size), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Formats, CudaStories, ::testing::Values("stories260K/stories260K.gguf", "stories260K/hf-f32"));

}  // namespace
}  // namespace snapdoc
