// GGUF writer -> reader round trips: every metadata type (nested arrays too), typed accessors and
// their errors, alignment, tensors in every supported dtype, raw tensors of other types, and the
// writer's no-partial-file guarantee.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cmath>
#include <fstream>
#include <numeric>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::TempDir;

std::vector<float> iota_floats(std::size_t n, float scale = 0.25f) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (static_cast<float>(i) - static_cast<float>(n) / 2) * scale;
    return v;
}

TEST(GgufFile, EveryMetadataTypeRoundTrips) {
    TempDir dir;
    GgufWriter w;
    w.set_u8("t.u8", 250);
    w.set_i8("t.i8", -120);
    w.set_u16("t.u16", 65000);
    w.set_i16("t.i16", -32000);
    w.set_u32("t.u32", 4000000000u);
    w.set_i32("t.i32", -2000000000);
    w.set_f32("t.f32", 1.5f);
    w.set_bool("t.bool", true);
    w.set_string("t.str", "héllo\n\"world\"");
    w.set_string("t.empty", "");
    w.set_u64("t.u64", 18000000000000000000ull);
    w.set_i64("t.i64", -9000000000000000000ll);
    w.set_f64("t.f64", 2.718281828459045);
    w.set_string_array("t.strs", {"a", "", "ccc"});
    w.set_f32_array("t.floats", {0.5f, -1.0f, 3.25f});
    w.set_i32_array("t.ints", {1, -2, 3});
    w.set("t.u8s", GgufMetaValue::array(GgufType::Uint8, {GgufMetaValue::u8(1), GgufMetaValue::u8(255)}));
    w.set("t.f64s", GgufMetaValue::array(GgufType::Float64, {GgufMetaValue::f64(0.125)}));
    w.set("t.empty_arr", GgufMetaValue::array(GgufType::Int64, {}));
    w.set("t.nested",
          GgufMetaValue::array(GgufType::Array,
                               {GgufMetaValue::array(GgufType::String, {GgufMetaValue::string("x")}),
                                GgufMetaValue::array(GgufType::Int16, {GgufMetaValue::i16(-5), GgufMetaValue::i16(7)})}));
    w.set_u32("t.replaced", 1);
    w.set_u32("t.replaced", 2);  // setting again replaces
    w.write(dir / "meta.gguf");

    const GgufFile g = GgufFile::open(dir / "meta.gguf");
    EXPECT_EQ(g.version(), 3u);
    EXPECT_EQ(g.alignment(), 32u);
    EXPECT_EQ(g.entries().size(), 21u);
    EXPECT_EQ(g.entries().front().key, "t.u8");  // insertion order kept
    EXPECT_EQ(g.get_int("t.u8"), 250);
    EXPECT_EQ(g.get_int("t.i8"), -120);
    EXPECT_EQ(g.get_int("t.u16"), 65000);
    EXPECT_EQ(g.get_int("t.i16"), -32000);
    EXPECT_EQ(g.get_int("t.u32"), 4000000000ll);
    EXPECT_EQ(g.get_int("t.i32"), -2000000000);
    EXPECT_EQ(g.get_float("t.f32"), 1.5);
    EXPECT_TRUE(g.get_bool("t.bool"));
    EXPECT_EQ(g.get_string("t.str"), "héllo\n\"world\"");
    EXPECT_EQ(g.get_string("t.empty"), "");
    EXPECT_EQ(g.value("t.u64").u, 18000000000000000000ull);
    EXPECT_EQ(g.value("t.u64").type, GgufType::Uint64);
    EXPECT_EQ(g.get_int("t.i64"), -9000000000000000000ll);
    EXPECT_DOUBLE_EQ(g.get_float("t.f64"), 2.718281828459045);
    EXPECT_EQ(g.get_string_array("t.strs"), (std::vector<std::string>{"a", "", "ccc"}));
    EXPECT_EQ(g.get_float_array("t.floats"), (std::vector<float>{0.5f, -1.0f, 3.25f}));
    EXPECT_EQ(g.get_int_array("t.ints"), (std::vector<int64_t>{1, -2, 3}));
    EXPECT_EQ(g.get_int_array("t.u8s"), (std::vector<int64_t>{1, 255}));
    EXPECT_EQ(g.get_float_array("t.f64s"), (std::vector<float>{0.125f}));
    EXPECT_TRUE(g.get_int_array("t.empty_arr").empty());
    EXPECT_EQ(g.get_int("t.replaced"), 2);
    EXPECT_FLOAT_EQ(static_cast<float>(g.get_float("t.u32")), 4e9f);  // integers read as numbers

    const GgufMetaValue nested = g.value("t.nested");
    ASSERT_EQ(nested.type, GgufType::Array);
    ASSERT_EQ(nested.elem_type, GgufType::Array);
    ASSERT_EQ(nested.items.size(), 2u);
    EXPECT_EQ(nested.items[0].elem_type, GgufType::String);
    EXPECT_EQ(nested.items[0].items[0].s, "x");
    EXPECT_EQ(nested.items[1].items[0].i, -5);
    EXPECT_EQ(nested.items[1].items[1].i, 7);
    const GgufMetaValue strs = g.value("t.strs");
    EXPECT_EQ(strs.items[2].s, "ccc");

    // Optional variants and errors.
    EXPECT_FALSE(g.get_string_opt("nope").has_value());
    EXPECT_FALSE(g.get_int_opt("nope").has_value());
    EXPECT_FALSE(g.get_float_array_opt("nope").has_value());
    EXPECT_TRUE(g.has("t.bool"));
    EXPECT_FORMAT_ERROR(g.get_int("nope"), "missing metadata key 'nope'");
    EXPECT_FORMAT_ERROR(g.get_int("t.str"), "'t.str' has type string, expected an integer");
    EXPECT_FORMAT_ERROR(g.get_string("t.u8"), "expected string");
    EXPECT_FORMAT_ERROR(g.get_bool_opt("t.u8"), "expected bool");
    EXPECT_FORMAT_ERROR(g.get_string_array("t.ints"), "array of int32");
    EXPECT_FORMAT_ERROR(g.get_float_array("t.strs"), "expected array of float32");
    EXPECT_FORMAT_ERROR(g.get_int_array("t.floats"), "expected array of integers");
    EXPECT_FORMAT_ERROR(g.get_int("t.u64"), "out of range");
    EXPECT_FORMAT_ERROR(g.get_float("t.str"), "expected a number");
}

TEST(GgufFile, TensorsInEverySupportedTypeRoundTrip) {
    TempDir dir;
    GgufWriter w;
    w.set_string("general.architecture", "test");
    const auto v64 = iota_floats(3 * 64);
    w.add_tensor("f32", {3, 64}, DType::F32, v64);
    w.add_tensor("f16", {3, 64}, DType::F16, v64);
    w.add_tensor("bf16", {3, 64}, DType::BF16, v64);
    w.add_tensor("q8", {3, 64}, DType::Q8_0, v64);
    w.add_tensor("vec", {5}, DType::F32, iota_floats(5));
    w.add_tensor("cube", {2, 3, 4}, DType::F16, iota_floats(24));
    w.add_tensor_generated("gen", {4, 32}, DType::BF16, [](int64_t row, std::span<float> out) {
        for (std::size_t j = 0; j < out.size(); ++j) out[j] = static_cast<float>(row * 100 + static_cast<int64_t>(j));
    });
    w.add_tensor_raw("q4k", {2, 256}, ggml_type::Q4_K, std::vector<uint8_t>(2 * 144, 7));
    w.write(dir / "t.gguf");

    const GgufFile g = GgufFile::open(dir / "t.gguf");
    ASSERT_EQ(g.tensors().size(), 8u);
    EXPECT_EQ(g.data_offset() % 32, 0u);
    for (const auto& t : g.tensors()) EXPECT_EQ(t.offset % 32, 0u) << t.name;

    const auto check = [&](const char* name, DType dt, std::vector<int64_t> shape, const std::vector<float>& src, float tol) {
        const auto* info = g.find_tensor(name);
        ASSERT_NE(info, nullptr) << name;
        const TensorView v = g.tensor_view(*info);
        EXPECT_EQ(v.dtype, dt);
        EXPECT_EQ(v.shape, shape);
        EXPECT_EQ(v.name, name);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data) % 32, 0u);
        std::vector<float> out(static_cast<std::size_t>(v.numel()));
        for (int64_t r = 0; r < v.numel() / v.cols(); ++r) {
            dequantize_row(v.dtype, v.data ? static_cast<const uint8_t*>(v.data) + r * dtype_row_bytes(dt, v.cols()) : nullptr,
                           out.data() + r * v.cols(), v.cols());
        }
        for (std::size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], src[i], tol) << name << " " << i;
    };
    check("f32", DType::F32, {3, 64}, v64, 0.0f);
    check("f16", DType::F16, {3, 64}, v64, 0.0f);   // quarter steps are exact in f16
    check("bf16", DType::BF16, {3, 64}, v64, 0.0f);
    check("q8", DType::Q8_0, {3, 64}, v64, 24.0f * 0.51f / 127.0f);
    check("vec", DType::F32, {5}, iota_floats(5), 0.0f);
    check("cube", DType::F16, {2, 3, 4}, iota_floats(24), 0.0f);
    std::vector<float> gen(128);
    for (int r = 0; r < 4; ++r)
        for (int j = 0; j < 32; ++j) gen[r * 32 + j] = bf16_to_f32(f32_to_bf16(static_cast<float>(r * 100 + j)));
    check("gen", DType::BF16, {4, 32}, gen, 0.0f);

    // GGUF stores dims innermost first.
    EXPECT_EQ(g.find_tensor("cube")->dims, (std::vector<uint64_t>{4, 3, 2}));
    const auto* q4k = g.find_tensor("q4k");
    ASSERT_NE(q4k, nullptr);
    EXPECT_EQ(q4k->ggml_type, ggml_type::Q4_K);
    EXPECT_EQ(q4k->nbytes.value_or(0), 2u * 144u);
    EXPECT_EQ(g.tensor_view(*q4k).dtype, DType::Q4_K);  // raw blocks of a type snapdoc computes with
    EXPECT_EQ(g.find_tensor("missing"), nullptr);
}

TEST(GgufFile, CustomAlignmentIsWrittenAndHonoured) {
    TempDir dir;
    GgufWriter w;
    w.set_alignment(256);
    w.add_tensor("a", {3}, DType::F32, iota_floats(3));
    w.add_tensor("b", {7}, DType::F16, iota_floats(7));
    w.write(dir / "a.gguf");
    const GgufFile g = GgufFile::open(dir / "a.gguf");
    EXPECT_EQ(g.alignment(), 256u);
    EXPECT_EQ(g.get_int("general.alignment"), 256);
    EXPECT_EQ(g.data_offset() % 256, 0u);
    EXPECT_EQ(g.find_tensor("b")->offset, 256u);
    EXPECT_THROW(w.set_alignment(48), Error);
}

TEST(GgufFile, WriterRejectsBadInput) {
    GgufWriter w;
    EXPECT_THROW(w.add_tensor("x", {2, 3}, DType::F32, iota_floats(5)), Error);       // wrong count
    EXPECT_THROW(w.add_tensor("x", {2, 48}, DType::Q8_0, iota_floats(96)), Error);    // not whole blocks
    EXPECT_THROW(w.add_tensor("x", {0, 4}, DType::F32, {}), Error);                   // empty dim
    EXPECT_THROW(w.set("k", GgufMetaValue::array(GgufType::Int32, {GgufMetaValue::u8(1)})), Error);  // mixed
    EXPECT_THROW(w.set_u32("general.alignment", 48), Error);
    EXPECT_THROW(w.set_string("general.alignment", "32"), Error);
    w.add_tensor("x", {4}, DType::F32, iota_floats(4));
    EXPECT_THROW(w.add_tensor("x", {4}, DType::F32, iota_floats(4)), Error);          // duplicate
}

TEST(GgufFile, WriteFailureLeavesNoFileBehind) {
    TempDir dir;
    GgufWriter w;
    w.add_tensor("big", {1024, 1024}, DType::F32, std::vector<float>(1024 * 1024, 1.0f));
    // Into a folder that does not exist.
    EXPECT_THROW(w.write(dir / "no-such-dir" / "m.gguf"), Error);

    // A "full disk": a file-size limit makes write() fail with EFBIG part-way through.
    struct rlimit old {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 64 * 1024;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool threw = false;
    try {
        w.write(dir / "m.gguf");
    } catch (const Error&) {
        threw = true;
    }
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_TRUE(threw);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "a partial or temporary file was left behind";

    // And the same writer succeeds once there is room, replacing nothing but the target.
    w.write(dir / "m.gguf");
    EXPECT_EQ(GgufFile::open(dir / "m.gguf").tensors().size(), 1u);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(MappedFile, OpenErrorsNameTheFile) {
    TempDir dir;
    EXPECT_FORMAT_ERROR(MappedFile::open(dir / "missing.gguf"), "missing.gguf': No such file or directory");
    EXPECT_FORMAT_ERROR(MappedFile::open(dir.path()), "it is a directory");
    std::ofstream(dir / "empty.bin");
    EXPECT_FORMAT_ERROR(MappedFile::open(dir / "empty.bin"), "empty.bin': the file is empty");
    std::ofstream(dir / "secret.bin") << "data";
    std::filesystem::permissions(dir / "secret.bin", std::filesystem::perms::none);
    if (::geteuid() != 0) {  // root reads anything
        EXPECT_FORMAT_ERROR(MappedFile::open(dir / "secret.bin"), "secret.bin': Permission denied");
    }
    std::filesystem::permissions(dir / "secret.bin", std::filesystem::perms::owner_all);
    const auto f = MappedFile::open(dir / "secret.bin");
    EXPECT_EQ(f->size(), 4u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(f->data()), 4), "data");
    EXPECT_EQ(f->path(), dir / "secret.bin");
    EXPECT_EQ(MappedFile::from_bytes("none", "")->size(), 0u);
}

TEST(GgufFile, GgmlTypeNames) {
    EXPECT_EQ(ggml_type_name(0), "F32");
    EXPECT_EQ(ggml_type_name(8), "Q8_0");
    EXPECT_EQ(ggml_type_name(12), "Q4_K");
    EXPECT_EQ(ggml_type_name(16), "IQ2_XXS");
    EXPECT_EQ(ggml_type_name(29), "IQ1_M");
    EXPECT_EQ(ggml_type_name(30), "BF16");
    EXPECT_EQ(ggml_type_name(4), "type id 4");
    EXPECT_EQ(ggml_type_name(1000), "type id 1000");
    EXPECT_EQ(dtype_from_ggml(30), DType::BF16);
    EXPECT_EQ(dtype_from_ggml(2), DType::Q4_0);
    EXPECT_EQ(dtype_from_ggml(14), DType::Q6_K);
    EXPECT_EQ(dtype_from_ggml(20), DType::IQ4_NL);
    EXPECT_EQ(dtype_from_ggml(23), DType::IQ4_XS);
    EXPECT_FALSE(dtype_from_ggml(16).has_value());  // IQ2_XXS
    EXPECT_FALSE(dtype_from_ggml(15).has_value());  // Q8_K
    EXPECT_EQ(ggml_from_dtype(DType::Q8_0), 8u);
}

TEST(GgufFile, ReadsInMemoryFiles) {
    TempDir dir;
    GgufWriter w;
    w.set_string("general.name", "mem");
    w.add_tensor("v", {2}, DType::F32, iota_floats(2));
    w.write(dir / "m.gguf");
    std::ifstream in(dir / "m.gguf", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const GgufFile g = GgufFile::parse(MappedFile::from_bytes("memory", bytes));
    EXPECT_EQ(g.get_string("general.name"), "mem");
    EXPECT_EQ(g.name(), "memory");
}

// The header alone, from a file's first bytes (a range request before a download): every prefix
// shorter than the header asks for more (never a crash or a wrong answer), any longer one gives
// the same metadata and tensor infos as the whole file, and no tensor data is handed out.
TEST(GgufFile, HeaderFromEveryPrefixOfTheFile) {
    TempDir dir;
    GgufWriter w;
    w.set_string("general.name", "prefix");
    w.set_string("general.architecture", "llama");
    w.set_u32("llama.block_count", 3);
    w.add_tensor("a", {64}, DType::F32, iota_floats(64));
    w.add_tensor("b", {4, 32}, DType::F32, iota_floats(128));
    w.write(dir / "m.gguf");
    std::ifstream in(dir / "m.gguf", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const GgufFile whole = GgufFile::parse(MappedFile::from_bytes("whole", bytes));
    const uint64_t header_end = whole.data_offset();
    for (std::size_t n = 0; n <= bytes.size(); ++n) {
        const auto prefix = MappedFile::from_bytes("prefix", std::string_view(bytes).substr(0, n));
        try {
            const GgufFile g = GgufFile::parse_header(prefix, bytes.size());
            EXPECT_EQ(g.get_string("general.name"), "prefix") << n;
            EXPECT_EQ(g.get_int("llama.block_count"), 3) << n;
            ASSERT_EQ(g.tensors().size(), 2u) << n;
            EXPECT_EQ(g.tensors()[1].shape(), (std::vector<int64_t>{4, 32})) << n;
            EXPECT_EQ(g.data_offset(), header_end) << n;
            if (n < bytes.size()) {
                EXPECT_THROW(g.tensor_data(g.tensors()[0]), FormatError) << n;
            } else {
                EXPECT_NO_THROW(g.tensor_view(g.tensors()[0])) << n;
            }
        } catch (const GgufPrefixTooShort& e) {
            EXPECT_LT(n, header_end) << "a complete header asked for more at " << n;
            EXPECT_GT(e.needed, n) << e.what();
            EXPECT_LE(e.needed, bytes.size()) << e.what();
        }
    }
    // More bytes than the file is said to have, and a corrupt start, are plain format errors.
    EXPECT_THROW(GgufFile::parse_header(MappedFile::from_bytes("long", bytes), bytes.size() - 1), FormatError);
    std::string corrupt = bytes;
    corrupt[0] = 'X';
    try {
        GgufFile::parse_header(MappedFile::from_bytes("corrupt", std::string_view(corrupt).substr(0, 64)), bytes.size());
        ADD_FAILURE() << "a corrupt magic number was read";
    } catch (const GgufPrefixTooShort&) {
        ADD_FAILURE() << "a corrupt file asked for more bytes";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("not a GGUF file"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace snapdoc
