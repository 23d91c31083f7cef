// safetensors reading: the writer's files round-trip in F32/F16/BF16, metadata is ignored, shards
// load through the index, and malformed headers/offsets end in FormatError naming the problem.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/safetensors_file.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/safetensors_writer.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::StTensor;
using testing::TempDir;

std::vector<float> ramp(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.5f - 3.0f;
    return v;
}

std::vector<float> read_all(const TensorView& v) {
    std::vector<float> out(static_cast<std::size_t>(v.numel()));
    dequantize_row(v.dtype, v.data, out.data(), v.numel());
    return out;
}

TEST(Safetensors, RoundTripsEveryDtype) {
    TempDir dir;
    testing::write_safetensors(dir / "m.safetensors",
                               {StTensor{"a", DType::F32, {2, 3}, ramp(6)}, StTensor{"b", DType::F16, {4}, ramp(4)},
                                StTensor{"c", DType::BF16, {3, 2}, ramp(6)}, StTensor{"s", DType::F32, {}, {7.0f}}},
                               {{"format", "pt"}});
    const SafetensorsFile st = SafetensorsFile::open(dir / "m.safetensors");
    ASSERT_EQ(st.tensors().size(), 4u);  // __metadata__ is not a tensor
    EXPECT_EQ(st.data_offset() % 8, 0u);
    const auto a = st.view(*st.find("a"));
    EXPECT_EQ(a.dtype, DType::F32);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.nbytes, 24u);
    EXPECT_EQ(read_all(a), ramp(6));
    const auto b = st.view(*st.find("b"));
    EXPECT_EQ(b.dtype, DType::F16);
    EXPECT_EQ(read_all(b), ramp(4));
    const auto c = st.view(*st.find("c"));
    EXPECT_EQ(c.dtype, DType::BF16);
    EXPECT_EQ(c.shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(read_all(c), ramp(6));
    const auto s = st.view(*st.find("s"));
    EXPECT_TRUE(s.shape.empty());
    EXPECT_EQ(*static_cast<const float*>(s.data), 7.0f);
    EXPECT_EQ(st.find("nope"), nullptr);
}

TEST(Safetensors, UnsupportedDtypeIsRefusedByName) {
    TempDir dir;
    testing::write_raw_safetensors(dir / "i.safetensors",
                                   R"({"pos":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
                                   R"("w":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[16,20]}})",
                                   std::string(20, '\0'));
    const SafetensorsFile st = SafetensorsFile::open(dir / "i.safetensors");  // the file itself is valid
    EXPECT_FORMAT_ERROR(st.view(*st.find("pos")), "tensor 'pos' has dtype I64, which snapdoc does not support");
    EXPECT_FORMAT_ERROR(st.view(*st.find("w")), "F8_E4M3");
}

TEST(Safetensors, MalformedHeadersAreFormatErrors) {
    TempDir dir;
    const auto p = dir / "bad.safetensors";
    auto expect = [&](const std::string& header, const std::string& data, const std::string& msg,
                      std::optional<uint64_t> len = std::nullopt) {
        testing::write_raw_safetensors(p, header, data, len);
        EXPECT_FORMAT_ERROR(SafetensorsFile::open(p), msg);
    };
    const std::string ok_entry = R"("t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
    expect("{" + ok_entry + "}", std::string(8, 'x'), "header length 1152921504606846976 exceeds",
           uint64_t{1} << 60);
    expect("{" + ok_entry + "}", std::string(8, 'x'), "truncated file: the header needs", 200);
    expect("{\"t\":", "", "the JSON header is invalid");
    expect("[1,2]", "", "the JSON header is not an object");
    expect(R"({"t":5})", "", "tensor 't': entry is not an object");
    expect(R"({"t":{"shape":[2],"data_offsets":[0,8]}})", std::string(8, 'x'), "missing or non-string 'dtype'");
    expect(R"({"t":{"dtype":"F32","data_offsets":[0,8]}})", std::string(8, 'x'), "non-array 'shape'");
    expect(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, 'x'), "invalid dimension -2");
    expect(R"({"t":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}})", std::string(8, 'x'), "invalid dimension");
    expect(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}})",
           std::string(8, 'x'), "overflows");
    expect(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", std::string(8, 'x'), "array of two integers");
    expect(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", std::string(8, 'x'), "reversed");
    expect(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,1152921504606846976]}})", std::string(8, 'x'),
           "truncated file: tensor 't' data ends at 1152921504606846976");
    expect(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, 'x'),
           "data_offsets span 8 bytes but 3 elements of F32");
    expect(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":["0","8"]}})", std::string(8, 'x'), "non-negative integers");

    std::ofstream(p, std::ios::binary | std::ios::trunc) << "abc";
    EXPECT_FORMAT_ERROR(SafetensorsFile::open(p), "too short for the header length");
    EXPECT_FORMAT_ERROR(SafetensorsFile::open(dir / "missing.safetensors"), "No such file or directory");
}

TEST(Safetensors, ShardedCheckpointLoadsEachShardOnce) {
    TempDir dir;
    std::vector<StTensor> t;
    for (int i = 0; i < 7; ++i) t.push_back(StTensor{"t" + std::to_string(i), DType::F32, {3}, ramp(3)});
    testing::write_safetensors_checkpoint(dir.path(), t, 3);
    EXPECT_TRUE(std::filesystem::exists(dir / "model-00002-of-00003.safetensors"));
    const SafetensorsCheckpoint ck = SafetensorsCheckpoint::open_folder(dir.path());
    EXPECT_EQ(ck.files().size(), 3u);
    EXPECT_EQ(ck.mappings().size(), 3u);
    for (int i = 0; i < 7; ++i) {
        const SafetensorsFile* f = nullptr;
        const auto* info = ck.find("t" + std::to_string(i), &f);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(read_all(f->view(*info)), ramp(3));
    }
    EXPECT_EQ(ck.find("t7"), nullptr);
}

TEST(Safetensors, BadIndexesAreFormatErrors) {
    TempDir dir;
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "no model.safetensors or model.safetensors.index.json");
    const auto index = dir / "model.safetensors.index.json";
    std::ofstream(index) << "{not json";
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "is not valid JSON");
    std::ofstream(index) << R"({"metadata":{}})";
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "has no \"weight_map\" object");
    std::ofstream(index) << R"({"weight_map":{"a":"../../etc/passwd"}})";
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "must name a file in the same folder");
    std::ofstream(index) << R"({"weight_map":{"a":"missing.safetensors"}})";
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "No such file or directory");
    testing::write_safetensors(dir / "s1.safetensors", {StTensor{"a", DType::F32, {1}, {1.0f}}});
    testing::write_safetensors(dir / "s2.safetensors", {StTensor{"a", DType::F32, {1}, {1.0f}}});
    std::ofstream(index) << R"({"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})";
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "appears in two shards");
    testing::write_safetensors(dir / "s2.safetensors", {StTensor{"c", DType::F32, {1}, {1.0f}}});
    EXPECT_FORMAT_ERROR(SafetensorsCheckpoint::open_folder(dir.path()), "places tensor 'b' in 's2.safetensors'");
}

}  // namespace
}  // namespace snapdoc
