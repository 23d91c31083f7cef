// The CUDA backend refuses, with one message naming the feature, every model part its kernels do
// not implement yet (q/k/v biases, q/k norms), and
// make_backend("auto") runs such a model on the CPU instead. The check comes before any device
// work, so these run without a GPU too.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cuda/cuda_backend.h"
#include "tests/cuda/cuda_model_fixture.h"

namespace snapdoc {
namespace {

struct RefusalCase {
    const char* name;
    testing::TinyModelSpec spec;
    const char* feature;
};

std::vector<RefusalCase> refusal_cases() {
    std::vector<RefusalCase> v;
    testing::TinyModelSpec s;
    s.arch = "qwen2";
    v.push_back({"qwen2_biases", s, "q/k/v projection biases"});
    s.arch = "qwen3";
    v.push_back({"qwen3_norms", s, "per-head q/k RMS norms"});
    return v;
}

class CudaRefusals : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(CudaRefusals, NameTheFeatureAndAutoFallsBackToTheCpu) {
    const RefusalCase& c = GetParam();
    auto tiny = cudatest::load_tiny(c.spec, DType::F32);
    EXPECT_EQ(cuda_unsupported_feature(*tiny->model), c.feature);
    try {
        make_cuda_backend(*tiny->model);
        FAIL() << "expected the CUDA backend to refuse " << c.feature;
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(std::string("does not support ") + c.feature), std::string::npos) << msg;
        EXPECT_NE(msg.find("--device cpu"), std::string::npos) << msg;
    }
    EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cpu");
}

INSTANTIATE_TEST_SUITE_P(Features, CudaRefusals, ::testing::ValuesIn(refusal_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CudaRefusals, PlainLlamaAndFusedPhi3WithoutScalingAreAccepted) {
    testing::TinyModelSpec s;
    EXPECT_EQ(cuda_unsupported_feature(*cudatest::load_tiny(s, DType::F32)->model), "");
    s.arch = "phi3";  // fused qkv / gate_up arrive as row slices, which the CUDA upload concatenates
    s.n_kv_heads = 4;
    EXPECT_EQ(cuda_unsupported_feature(*cudatest::load_tiny(s, DType::F32)->model), "");
}

// Every rope scaling kind runs on the device (the CPU backend's frequency table; compared with the
// CPU in test_cuda_rope_scaling.cpp).
TEST(CudaRefusals, EveryRopeScalingKindIsAccepted) {
    testing::TinyModelSpec s;
    s.rope = {RopeScalingKind::Llama3, 8.f, 256, 1.f, 4.f};
    EXPECT_EQ(cuda_unsupported_feature(*cudatest::load_tiny(s, DType::F32)->model), "");
    s.rope = {RopeScalingKind::Yarn, 4.f, 128};
    EXPECT_EQ(cuda_unsupported_feature(*cudatest::load_tiny(s, DType::F32)->model), "");
    s.arch = "phi3";
    s.n_kv_heads = 4;
    s.context_length = 4096;
    s.rope = {RopeScalingKind::LongRope, 1.f, 512};
    EXPECT_EQ(cuda_unsupported_feature(*cudatest::load_tiny(s, DType::F32)->model), "");
}

}  // namespace
}  // namespace snapdoc
