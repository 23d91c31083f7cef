// make_backend("cpu" | "cuda" | "auto"). These run without a GPU too: "auto" must then fall back to
// the CPU and "cuda" must fail with the reason.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/runtime/backend_factory.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"

namespace snapdoc {
namespace {

TEST(BackendFactory, PicksByName) {
    auto tiny = cudatest::load_tiny(testing::TinyModelSpec{}, DType::F32);
    EXPECT_TRUE(cuda_backend_built());
    EXPECT_EQ(make_backend(*tiny->model, {}, "cpu")->name(), "cpu");
    EXPECT_THROW(make_backend(*tiny->model, {}, "tpu"), Error);
    if (cuda_device_count() > 0) {
        EXPECT_EQ(resolve_device("auto"), "cuda");
        EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cuda");
        EXPECT_EQ(make_backend(*tiny->model, {}, "cuda")->name(), "cuda");
    } else {
        EXPECT_EQ(resolve_device("auto"), "cpu");
        EXPECT_EQ(make_backend(*tiny->model, {}, "auto")->name(), "cpu");
        try {
            make_backend(*tiny->model, {}, "cuda");
            FAIL() << "expected an error without a CUDA device";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(cuda_unavailable_reason()), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace snapdoc
