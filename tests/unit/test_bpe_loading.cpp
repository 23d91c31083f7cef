// Byte-level BPE vocabularies as model files carry them: GGUF `tokenizer.ggml.*` ("gpt2") and
// Hugging Face tokenizer.json. A broken file is one clear error naming what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/model.h"
#include "engine/tokenizer/bpe_byte_map.h"
#include "engine/tokenizer/hf_tokenizer_json.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/tiny_model.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using nlohmann::json;
using namespace snapdoc::testing;

// One folder per test process (ctest runs each test as its own process, in parallel), removed at exit.
std::filesystem::path scratch(const std::string& name) {
    static const TempDir dir("snapdoc-bpe-loading");
    return dir / name;
}

// 256 byte tokens, "ab", "Ġa" and two control tokens.
std::vector<std::string> tokens() {
    std::vector<std::string> t;
    for (int b = 0; b < 256; ++b) t.push_back(byte_level::encode(std::string(1, static_cast<char>(b))));
    t.push_back("ab");
    t.push_back(byte_level::encode(" a"));
    t.push_back("<|endoftext|>");
    t.push_back("<|im_start|>");
    return t;
}

struct GgufSpec {
    std::vector<std::string> tokens = snapdoc::tokens();
    std::vector<std::string> merges = {"a b", byte_level::encode(" ") + " a"};
    std::vector<int32_t> types = [] {
        std::vector<int32_t> v(260, 1);
        v[258] = v[259] = 3;
        return v;
    }();
    std::string pre = "qwen2";
};

GgufVocab read(const GgufSpec& s) {
    GgufWriter w;
    w.set_string("general.architecture", "qwen2");
    w.set_string("tokenizer.ggml.model", "gpt2");
    w.set_string("tokenizer.ggml.pre", s.pre);
    w.set_string_array("tokenizer.ggml.tokens", s.tokens);
    w.set_string_array("tokenizer.ggml.merges", s.merges);
    w.set_i32_array("tokenizer.ggml.token_type", s.types);
    w.set_u32("tokenizer.ggml.bos_token_id", 258);
    w.set_u32("tokenizer.ggml.eos_token_id", 258);
    w.set_bool("tokenizer.ggml.add_bos_token", false);
    const auto path = scratch("v.gguf");
    w.write(path);
    return read_gguf_vocab(GgufFile::open(path), 1000);
}

TEST(BpeLoading, GgufGpt2VocabularyLoads) {
    const GgufVocab v = read(GgufSpec{});
    ASSERT_EQ(v.error, "");
    ASSERT_TRUE(v.bpe);
    EXPECT_TRUE(v.proto.empty());
    EXPECT_EQ(v.add_bos, false);
    const Tokenizer tok = Tokenizer::from_bpe(v.bpe);
    EXPECT_EQ(tok.encode("ab a"), (std::vector<int32_t>{256, 257}));
    EXPECT_EQ(tok.bos_id(), 258);
    EXPECT_TRUE(tok.is_control(259));
    EXPECT_EQ(tok.piece_to_id("<|im_start|>"), 259);
}

TEST(BpeLoading, BrokenGgufVocabulariesAreRecorded) {
    GgufSpec s;
    s.pre = "falcon-h7";
    EXPECT_NE(read(s).error.find("unknown pre-tokenizer 'falcon-h7'"), std::string::npos) << read(s).error;
    s = GgufSpec{};
    s.merges.push_back("ab");
    EXPECT_NE(read(s).error.find("tokenizer.ggml.merges entry 2 'ab' is not 'left right'"), std::string::npos)
        << read(s).error;
    s = GgufSpec{};
    s.merges.push_back("q zz");
    EXPECT_NE(read(s).error.find("merge 2 'q zz': its right side is not in the vocabulary"),
              std::string::npos)
        << read(s).error;
    s = GgufSpec{};
    s.types.resize(100);  // truncated
    EXPECT_NE(read(s).error.find("tokenizer.ggml.token_type has 100 entries for 260 tokens"),
              std::string::npos)
        << read(s).error;
    s = GgufSpec{};
    s.tokens.resize(2000, "x");
    EXPECT_NE(read(s).error.find("the tokenizer has 2000 tokens but the model's vocabulary is 1000"),
              std::string::npos);
    EXPECT_FALSE(read(s).bpe);
}

json minimal_tokenizer_json() {
    json vocab = json::object();
    const auto t = tokens();
    for (std::size_t i = 0; i < 258; ++i) vocab[t[i]] = i;
    json root;
    root["model"] = {{"type", "BPE"},
                     {"vocab", vocab},
                     {"merges", json::array({json::array({"a", "b"}), byte_level::encode(" ") + " a"})}};
    root["added_tokens"] = json::array({{{"id", 258}, {"content", "<|endoftext|>"}, {"special", true}},
                                        {{"id", 259}, {"content", "<tool>"}, {"special", false}}});
    root["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    root["post_processor"] = {{"type", "TemplateProcessing"},
                              {"single", json::array({json{{"SpecialToken", {{"id", "<|endoftext|>"}}}},
                                                      json{{"Sequence", {{"id", "A"}}}}})}};
    return root;
}

std::string hf_error(const json& root) {
    try {
        (void)parse_hf_tokenizer_json(root.dump());
    } catch (const FormatError& e) {
        return e.what();
    }
    return "no error";
}

TEST(BpeLoading, TokenizerJsonByteLevel) {
    const HfTokenizerJson hf = parse_hf_tokenizer_json(minimal_tokenizer_json().dump());
    ASSERT_TRUE(hf.bpe);
    const Tokenizer tok = Tokenizer::from_bpe_vocab(*hf.bpe);
    EXPECT_EQ(tok.encode("ab a<tool>"), (std::vector<int32_t>{256, 257, 259}));  // user-defined: matched
    EXPECT_EQ(tok.encode("<|endoftext|>").size(), 13u);                          // special: text
    EXPECT_TRUE(tok.add_bos());
    EXPECT_EQ(tok.bos_id(), 258);
    const auto path = scratch("tokenizer.json");
    std::ofstream(path) << minimal_tokenizer_json().dump();
    EXPECT_EQ(Tokenizer::from_file(path.string()).encode("ab a"), (std::vector<int32_t>{256, 257}));
}

// A byte-level tokenizer.json whose unk_token is listed as a special added token: text the
// vocabulary cannot spell encodes to the unknown id, which is typed unknown, not control (plain
// text never yields a control id; typed control it did — found by fuzz_tokenizer_json).
TEST(BpeLoading, TheUnknownTokenIsNotAControlToken) {
    json j = minimal_tokenizer_json();
    const int z = j["model"]["vocab"]["z"].get<int>();
    j["model"]["vocab"].erase("z");
    j["model"]["vocab"]["<unk>"] = z;
    j["model"]["unk_token"] = "<unk>";
    j["added_tokens"].push_back({{"id", z}, {"content", "<unk>"}, {"special", true}});
    const HfTokenizerJson hf = parse_hf_tokenizer_json(j.dump());
    ASSERT_TRUE(hf.bpe);
    const Tokenizer tok = Tokenizer::from_bpe_vocab(*hf.bpe);
    const std::vector<int32_t> ids = tok.encode("z");
    ASSERT_EQ(ids, std::vector<int32_t>{z});
    EXPECT_FALSE(tok.is_control(z));
}

TEST(BpeLoading, BrokenTokenizerJsonIsOneClearError) {
    EXPECT_NE(hf_error(json::parse("[1]")).find("not a JSON object"), std::string::npos);
    try {
        (void)parse_hf_tokenizer_json("{\"model\": ");
        FAIL();
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("tokenizer.json: not valid JSON"), std::string::npos)
            << e.what();
    }
    json j = minimal_tokenizer_json();
    j["model"]["type"] = "WordPiece";
    EXPECT_NE(hf_error(j).find("model type 'WordPiece' is not supported"), std::string::npos) << hf_error(j);
    j = minimal_tokenizer_json();
    j["model"]["merges"].push_back("a zz");
    EXPECT_NE(hf_error(j).find("no error"), std::string::npos);  // parsing alone does not check merges...
    EXPECT_THROW(Tokenizer::from_bpe_vocab(*parse_hf_tokenizer_json(j.dump()).bpe),
                 FormatError);  // ...building does
    j = minimal_tokenizer_json();
    j["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         json::array({json{{"type", "Split"}, {"pattern", {{"Regex", "\\s+"}}}, {"behavior", "Removed"}},
                      json{{"type", "ByteLevel"}}})}};
    EXPECT_NE(hf_error(j).find("Split behaviour 'Removed'"), std::string::npos) << hf_error(j);
    j = minimal_tokenizer_json();
    j["model"]["vocab"]["dup"] = 3;
    EXPECT_NE(hf_error(j).find("have the same id 3"), std::string::npos) << hf_error(j);
    j = minimal_tokenizer_json();
    j["normalizer"] = {{"type", "Lowercase"}};
    EXPECT_NE(hf_error(j).find("normalizer 'Lowercase' is not supported"), std::string::npos) << hf_error(j);
    j = minimal_tokenizer_json();
    j["added_tokens"].push_back({{"id", 1 << 29}, {"content", "<far>"}, {"special", true}});
    EXPECT_NE(hf_error(j).find("token ids go up to 536870912 for 261 tokens"), std::string::npos)
        << hf_error(j);
    j = minimal_tokenizer_json();
    j["model"]["merges"] = "nope";
    EXPECT_NE(hf_error(j).find("'merges' must be a list"), std::string::npos) << hf_error(j);
}

TEST(BpeLoading, HuggingFaceFolderWithOnlyTokenizerJson) {
    const auto dir = scratch("hf-folder");
    TinyModelSpec spec;  // 320 embedding rows
    write_tiny_hf(dir, make_tiny_weights(spec), DType::F32);
    std::ofstream(dir / "tokenizer.json") << minimal_tokenizer_json().dump();
    std::ofstream(dir / "tokenizer_config.json")
        << R"({"add_bos_token": false, "eos_token": "<|endoftext|>"})";
    Model m = load_model(dir);
    ASSERT_TRUE(m.has_tokenizer()) << m.tokenizer_error;
    const Tokenizer tok = Tokenizer::from_model(m);
    EXPECT_EQ(tok.kind(), TokenizerKind::ByteLevelBpe);
    EXPECT_FALSE(tok.add_bos());  // tokenizer_config.json wins over the post-processor
    EXPECT_EQ(tok.eos_id(), 258);
    EXPECT_EQ(tok.encode("ab a"), (std::vector<int32_t>{256, 257}));

    // More tokens than embedding rows: recorded, not a tokenizer with out-of-range ids.
    json big = minimal_tokenizer_json();
    big["added_tokens"].push_back({{"id", 400}, {"content", "<extra>"}, {"special", true}});
    std::ofstream(dir / "tokenizer.json") << big.dump();
    m = load_model(dir);
    EXPECT_FALSE(m.has_tokenizer());
    EXPECT_NE(m.tokenizer_error.find("the tokenizer has 401 tokens but the model's vocabulary is 320"),
              std::string::npos)
        << m.tokenizer_error;
}

}  // namespace
}  // namespace snapdoc
