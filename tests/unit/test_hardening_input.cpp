// Issue 14, reading: every file the program reads goes through the guarded open, so a FIFO, a
// symlink to /dev/zero, a directory or a device is a clear error at once, never a blocked open()
// or an endless read; and every JSON input is parsed with a depth limit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "app/common/document_text.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/common/message_text.h"
#include "engine/model/hf_config.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/model/read_file.h"
#include "engine/model/safetensors_file.h"
#include "engine/tokenizer/hf_tokenizer_json.h"
#include "tests/support/error_text.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::error_text;
using testing::TempDir;

// A valid config.json of a tiny Llama, for folders whose other files are the broken part.
constexpr const char* kTinyConfig =
    R"({"architectures":["LlamaForCausalLM"],"hidden_size":8,"intermediate_size":16,"num_hidden_layers":1,)"
    R"("num_attention_heads":2,"num_key_value_heads":1,"vocab_size":32,"max_position_embeddings":64})";

void write_file(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
}

// The opened-for-reading file kinds that are not regular files. A FIFO without a writer: the
// unguarded open() blocked here forever (a hang would time the whole suite out).
class SpecialInputs : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
        std::filesystem::create_symlink("/dev/zero", dir_ / "zero");
        std::filesystem::create_directory(dir_ / "folder");
    }
    TempDir dir_;
};

TEST_F(SpecialInputs, MappedFileRefusesFifoDeviceAndDirectory) {
    EXPECT_FORMAT_ERROR(MappedFile::open(dir_ / "fifo"), "it is a FIFO (named pipe), not a regular file");
    EXPECT_FORMAT_ERROR(MappedFile::open(dir_ / "zero"), "it is a character device");
    EXPECT_FORMAT_ERROR(MappedFile::open(dir_ / "folder"), "it is a directory");
    EXPECT_FORMAT_ERROR(MappedFile::open(dir_ / "missing"), "No such file or directory");
}

TEST_F(SpecialInputs, ModelPathThatIsAFifoOrDeviceIsRefused) {
    EXPECT_FORMAT_ERROR(load_model(dir_ / "fifo"), "FIFO");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "zero"), "character device");
}

TEST_F(SpecialInputs, HfFolderWhoseFilesAreFifosIsRefused) {
    const auto hf = dir_ / "hf";
    std::filesystem::create_directory(hf);
    ASSERT_EQ(::mkfifo((hf / "config.json").c_str(), 0600), 0);
    EXPECT_FORMAT_ERROR(load_model(hf), "FIFO");
    // A good config.json, the weights a FIFO.
    std::filesystem::remove(hf / "config.json");
    write_file(hf / "config.json", kTinyConfig);
    ASSERT_EQ(::mkfifo((hf / "model.safetensors").c_str(), 0600), 0);
    EXPECT_FORMAT_ERROR(load_model(hf), "FIFO");
}

TEST_F(SpecialInputs, SideFilesAndDocumentsAreRegularFilesOnly) {
    EXPECT_FORMAT_ERROR(read_small_file(dir_ / "fifo"), "FIFO");
    EXPECT_FORMAT_ERROR(read_small_file(dir_ / "zero"), "character device");
    // A document that is a symlink to /dev/zero reports size 0 and used to be read until memory ran out.
    EXPECT_NE(error_text([&] { read_document_text(dir_ / "zero"); }).find("character device"),
              std::string::npos);
    EXPECT_NE(error_text([&] { read_document_text(dir_ / "fifo"); }).find("FIFO"), std::string::npos);
    EXPECT_NE(error_text([&] { read_document_text(dir_ / "folder"); }).find("directory"), std::string::npos);
}

TEST(InputFile, SizeIsCheckedBeforeReading) {
    TempDir dir;
    write_file(dir / "a.txt", std::string(1000, 'x'));
    EXPECT_EQ(read_regular_file(dir / "a.txt", 1000).size(), 1000u);
    EXPECT_FORMAT_ERROR(read_regular_file(dir / "a.txt", 999, "config"), "config '");
    EXPECT_FORMAT_ERROR(read_regular_file(dir / "a.txt", 999), "is 1000 bytes, more than the 999 allowed");
    write_file(dir / "empty", "");
    EXPECT_EQ(read_regular_file(dir / "empty", 10), "");
}

// 100,000 levels: nlohmann parses it iteratively, but dump() (used when formatting a message),
// copies and comparisons recurse, so the depth must be refused before a value is built.
std::string deep_json(int depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

TEST(BoundedJson, DeepNestingIsRefusedWithoutRecursion) {
    EXPECT_FORMAT_ERROR(parse_json_input(deep_json(100000), "x.json: "),
                        "x.json: not valid JSON: nested deeper than 128 levels (at byte 128)");
    EXPECT_FORMAT_ERROR(parse_json_input("{\"a\":" + deep_json(200) + "}", "x: "), "nested deeper than 128");
    EXPECT_NO_THROW(parse_json_input(deep_json(128), "x: "));
    // Brackets inside strings do not count, escaped quotes do not end a string.
    EXPECT_NO_THROW(parse_json_input("{\"a\\\"" + std::string(500, '[') + "\":1}", "x: "));
}

TEST(BoundedJson, EveryJsonInputUsesTheLimit) {
    EXPECT_FORMAT_ERROR(parse_hf_config("{\"shape\":" + deep_json(100000) + "}", "dir/config.json"),
                        "dir/config.json: not valid JSON: nested deeper than");
    EXPECT_FORMAT_ERROR(parse_hf_tokenizer_json(deep_json(100000), ""),
                        "tokenizer.json: not valid JSON: nested deeper");
    EXPECT_FORMAT_ERROR(parse_hf_tokenizer_json("{}", deep_json(100000)),
                        "tokenizer_config.json: not valid JSON: nested");

    // A safetensors header whose 'shape' nests 100,000 deep.
    const std::string header =
        "{\"t\":{\"dtype\":\"F32\",\"shape\":" + deep_json(100000) + ",\"data_offsets\":[0,4]}}";
    std::string file(8, '\0');
    const uint64_t n = header.size();
    std::memcpy(file.data(), &n, 8);
    file += header + std::string(4, '\0');
    EXPECT_FORMAT_ERROR(SafetensorsFile::parse(MappedFile::from_bytes("deep.safetensors", file)),
                        "the JSON header is invalid: not valid JSON: nested deeper");
}

TEST(BoundedJson, ValueCountIsBounded) {
    std::string many = "[0";
    for (int i = 0; i < 1000; ++i) many += ",0";
    many += "]";
    EXPECT_NO_THROW(parse_json_input(many, "x: "));
    EXPECT_FORMAT_ERROR(parse_json_input(many, "x: ", {.max_values = 1000}),
                        "x: not valid JSON: more than 1000 values (1002)");
    EXPECT_EQ(scan_json_shape("{\"a,b\":[1,2],\"c\":{}}", 10).values, 6u);  // commas in strings do not count
}

// The issue's reproducer: a ~50 MB safetensors header of one huge 'shape', loaded by the CLI in a
// child process under a 1.5 GB address-space limit. It aborted (bad_alloc in nlohmann's noexcept
// destructor); now the value count is refused before parsing, with a message.
TEST(BoundedJson, HugeSafetensorsHeaderUnderAMemoryLimitIsAMessage) {
    TempDir dir;
    write_file(dir / "config.json", kTinyConfig);
    std::string header = R"({"t":{"dtype":"F32","shape":[0)";
    header.reserve(std::size_t{50} << 20);
    while (header.size() < (std::size_t{50} << 20)) header += ",0";
    header += R"(],"data_offsets":[0,0]}})";
    std::string file(8, '\0');
    const uint64_t n = header.size();
    std::memcpy(file.data(), &n, 8);
    write_file(dir / "model.safetensors", file + header);
    const CommandResult r = run_command("ulimit -v 1500000; timeout 60 " + std::string(SNAPDOC_CLI_PATH) +
                                        " info -m '" + dir.path().string() + "' 2>&1");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("the JSON header is invalid: not valid JSON: more than 1048576 values"),
              std::string::npos)
        << r.output;
}

TEST(BoundedJson, ParserMessagesCarryNoRawBytes) {
    // A NUL, an escape sequence and a newline in the bad token; a 100 KB unterminated string.
    const std::string bad = std::string("{\"a\": tru\x01\x1b[31m\n") + '\0' + "x}";
    const std::string m = error_text([&] { parse_json_input(bad, "c.json: "); });
    ASSERT_FALSE(m.empty());
    for (const char c : m) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << m;
    const std::string huge =
        error_text([&] { parse_json_input("{\"a\": \"" + std::string(100000, 'z'), "c.json: "); });
    EXPECT_LT(huge.size(), 600u) << huge.size();
}

TEST(PrintableExcerpt, EscapesControlsAndInvalidUtf8AndCutsLongInput) {
    EXPECT_EQ(printable_excerpt(std::string("a\0b\n\x1b", 5)), "a\\x00b\\x0a\\x1b");
    EXPECT_EQ(printable_excerpt("caf\xc3\xa9"), "caf\xc3\xa9");       // valid UTF-8 is kept
    EXPECT_EQ(printable_excerpt("\xff\xc2\x9b"), "\\xff\\xc2\\x9b");  // invalid byte, C1 control (CSI)
    EXPECT_EQ(printable_excerpt(std::string(10, 'x'), 4), "xxxx... (10 bytes)");
}

}  // namespace
}  // namespace snapdoc
