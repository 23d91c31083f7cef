// Every tensor of the kept quantized modelzoo GGUFs (made by llama.cpp's own quantizer: Q4_0, Q4_K,
// Q6_K, Q8_0 mixed as in real downloads, F32 norms), opened through GgufFile and dequantized by snapdoc,
// against ggml's own dequantization: `dequant-<VARIANT>.json` holds the sha256 of ggml's f32 bytes per
// tensor, their sum and sum of squares, the first 8 values and 8 values spread over the tensor.
// The sha256 makes this bit-exact.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_types.h"
#include "tests/support/fixtures.h"
#include "tests/support/sha256.h"

namespace snapdoc {
namespace {

struct Variant {
    const char* folder;
    const char* variant;
};

class DequantFixture : public ::testing::TestWithParam<Variant> {};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

TEST_P(DequantFixture, EveryTensorMatchesGgmlsDequantization) {
    const Variant v = GetParam();
    const std::string dir = std::string("modelzoo/") + v.folder + "/";
    const std::string gguf = dir + v.folder + "-" + v.variant + ".gguf";
    const std::string oracle = dir + "dequant-" + v.variant + ".json";
    SNAPDOC_REQUIRE_FIXTURE(gguf);
    SNAPDOC_REQUIRE_FIXTURE(oracle);
    const auto want = nlohmann::json::parse(read_text_file(fixture_path(oracle)));
    const GgufFile g = GgufFile::open(fixture_path(gguf));
    ASSERT_EQ(want.at("tensors").size(), g.tensors().size());
    int checked_quantized = 0;
    for (const auto& [name, t] : want.at("tensors").items()) {
        SCOPED_TRACE(name);
        const auto* info = g.find_tensor(name);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(lower(ggml_type_name(info->ggml_type)), lower(t.at("type").get<std::string>()));
        const TensorView view = g.tensor_view(*info);  // the loader accepts the type
        const int64_t cols = view.cols(), rows = view.numel() / cols;
        std::vector<float> values(static_cast<std::size_t>(view.numel()));
        for (int64_t r = 0; r < rows; ++r)
            dequantize_row(view.dtype, view.row_ptr(r), values.data() + r * cols, cols);

        testing::Sha256 sha;
        sha.update(values.data(), values.size() * sizeof(float));  // little-endian f32, as ggml wrote them
        EXPECT_EQ(sha.hex(), t.at("sha256_f32").get<std::string>());
        double sum = 0, sumsq = 0;
        for (float x : values) {
            sum += x;
            sumsq += static_cast<double>(x) * x;
        }
        const double want_sumsq = t.at("sumsq").get<double>();
        EXPECT_NEAR(sumsq, want_sumsq, 1e-9 * want_sumsq);
        EXPECT_NEAR(sum, t.at("sum").get<double>(),
                    1e-9 * std::sqrt(want_sumsq * static_cast<double>(values.size())));
        const auto& first8 = t.at("first8");
        for (std::size_t i = 0; i < first8.size(); ++i)
            EXPECT_EQ(values[i], first8[i].get<float>()) << "value " << i;
        for (const auto& [index, value] : t.at("at").items())
            EXPECT_EQ(values[std::stoul(index)], value.get<float>()) << "value " << index;
        if (dtype_is_quantized(view.dtype)) ++checked_quantized;
    }
    EXPECT_GT(checked_quantized, 0);
}

INSTANTIATE_TEST_SUITE_P(Modelzoo, DequantFixture,
                         ::testing::Values(Variant{"spm-llama-tiny", "Q4_0"},
                                           Variant{"spm-llama-tiny", "Q4_K_M"},
                                           Variant{"spm-llama-tiny", "Q8_0"},
                                           Variant{"llama31-tiny", "Q4_K_M"},
                                           Variant{"llama31-tiny", "Q8_0"}),
                         [](const auto& info) {
                             std::string s = std::string(info.param.folder) + "_" + info.param.variant;
                             for (char& c : s)
                                 if (c == '-') c = '_';
                             return s;
                         });

}  // namespace
}  // namespace snapdoc
