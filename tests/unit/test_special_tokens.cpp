// End-of-generation ids: read from GGUF metadata (eos/eot/eom + control tokens with an end-of-turn
// name) and Hugging Face side files (config.json / generation_config.json lists, tokenizer_config
// added tokens), and the stop rule generation uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/model.h"
#include "engine/model/special_tokens.h"
#include "engine/runtime/backend.h"
#include "engine/session/generate.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using Ids = std::vector<int32_t>;
using namespace testing;

ModelConfig config_with_vocab(int vocab) {
    ModelConfig c;
    c.vocab_size = vocab;
    c.eos_id = 2;
    return c;
}

// A metadata-only GGUF with a small vocabulary: pieces 0..n-1, `controls` typed control.
std::filesystem::path write_vocab_gguf(const testing::TempDir& dir, const std::string& name,
                                       const std::vector<std::string>& pieces,
                                       const std::vector<int32_t>& types,
                                       const std::vector<std::pair<std::string, uint32_t>>& ids) {
    GgufWriter w;
    w.set_string("general.architecture", "llama");
    w.set_string_array("tokenizer.ggml.tokens", pieces);
    w.set_i32_array("tokenizer.ggml.token_type", types);
    for (const auto& [key, id] : ids) w.set_u32(key, id);
    const auto path = dir / name;
    w.write(path);
    return path;
}

TEST(SpecialTokens, EndOfTurnNames) {
    for (const char* n : {"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|im_end|>", "<|end|>",
                          "<|endoftext|>", "<end_of_turn>", "<EOT>"})
        EXPECT_TRUE(is_end_of_turn_name(n)) << n;
    for (const char* n : {"</s>", "<|im_start|>", "<|start_header_id|>", "end", "<|END|>", ""})
        EXPECT_FALSE(is_end_of_turn_name(n)) << n;
}

// Llama 3.1-like: eos <|eot_id|>, eom, and <|end_of_text|> found by name (llama.cpp reports the same set).
TEST(SpecialTokens, GgufEosEotEomAndNamedControlTokens) {
    testing::TempDir dir("snapdoc-special-tokens");
    const std::vector<std::string> pieces = {"a",          "b",       "<|end_of_text|>", "<|eom_id|>",
                                             "<|eot_id|>", "<|end|>", "<|im_end|>"};
    // <|end|> is a normal token here (type 1): a model that uses the text as a word does not stop on it.
    const std::vector<int32_t> types = {1, 1, 3, 3, 3, 1, 4};
    const auto path = write_vocab_gguf(dir, "a.gguf", pieces, types,
                                       {{"tokenizer.ggml.eos_token_id", 4},
                                        {"tokenizer.ggml.eot_token_id", 4},
                                        {"tokenizer.ggml.eom_token_id", 3},
                                        {"tokenizer.ggml.bos_token_id", 0}});
    const GgufFile g = GgufFile::open(path);
    EXPECT_EQ(gguf_end_of_generation_ids(g, config_with_vocab(7)), (Ids{2, 3, 4}));
}

TEST(SpecialTokens, GgufNoneValuesAreSkippedAndBadIdsNamed) {
    testing::TempDir dir("snapdoc-special-tokens");
    const auto none =
        write_vocab_gguf(dir, "none.gguf", {"a", "b", "c"}, {1, 1, 1},
                         {{"tokenizer.ggml.eos_token_id", 1}, {"tokenizer.ggml.eot_token_id", 0xFFFFFFFFu}});
    EXPECT_EQ(gguf_end_of_generation_ids(GgufFile::open(none), config_with_vocab(3)), (Ids{1}));

    const auto bad =
        write_vocab_gguf(dir, "bad.gguf", {"a", "b", "c"}, {1, 1, 1}, {{"tokenizer.ggml.eom_token_id", 9}});
    try {
        gguf_end_of_generation_ids(GgufFile::open(bad), config_with_vocab(3));
        FAIL() << "no error";
    } catch (const FormatError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("eom_token_id"), std::string::npos) << msg;
        EXPECT_NE(msg.find("9"), std::string::npos) << msg;
    }
}

// A token list of the wrong type is the tokenizer's problem: the ids from the keys still come back.
TEST(SpecialTokens, GgufMalformedTokenListIsSkipped) {
    testing::TempDir dir("snapdoc-special-tokens");
    GgufWriter w;
    w.set_string("general.architecture", "llama");
    w.set_string("tokenizer.ggml.tokens", "not a list");
    w.set_u32("tokenizer.ggml.eos_token_id", 1);
    w.write(dir / "bad-tokens.gguf");
    EXPECT_EQ(gguf_end_of_generation_ids(GgufFile::open(dir / "bad-tokens.gguf"), config_with_vocab(3)),
              (Ids{1}));
}

void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

TEST(SpecialTokens, HuggingFaceListsAndAddedTokens) {
    testing::TempDir dir("snapdoc-special-tokens");
    write_file(dir / "config.json", R"({"eos_token_id": [7, 9], "vocab_size": 20})");
    write_file(dir / "generation_config.json", R"({"eos_token_id": 11, "do_sample": true})");
    write_file(dir / "tokenizer_config.json", R"({"added_tokens_decoder": {
        "12": {"content": "<|im_end|>", "special": true},
        "13": {"content": "<|end|>", "special": false},
        "14": {"content": "<|im_start|>", "special": true},
        "99": {"content": "<|endoftext|>", "special": true}}})");
    ModelConfig c = config_with_vocab(20);
    c.eos_id = 7;
    // 13 is not special, 14 is not an end-of-turn name, 99 lies past the embedding rows.
    EXPECT_EQ(hf_end_of_generation_ids(dir.path(), c), (Ids{7, 9, 11, 12}));

    write_file(dir / "generation_config.json", R"({"eos_token_id": [3, 40]})");
    try {
        hf_end_of_generation_ids(dir.path(), c);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("generation_config.json"), std::string::npos) << e.what();
    }
    write_file(dir / "generation_config.json", "{not json");
    EXPECT_THROW(hf_end_of_generation_ids(dir.path(), c), FormatError);
}

TEST(SpecialTokens, HuggingFaceFolderWithoutSideFiles) {
    testing::TempDir dir("snapdoc-special-tokens");
    EXPECT_EQ(hf_end_of_generation_ids(dir.path(), config_with_vocab(10)), (Ids{2}));
    ModelConfig none = config_with_vocab(10);
    none.eos_id = -1;
    EXPECT_TRUE(hf_end_of_generation_ids(dir.path(), none).empty());
}

TEST(SpecialTokens, EndsGeneration) {
    ModelConfig c = config_with_vocab(100);
    c.eos_id = 5;
    c.end_of_generation_ids = {5, 40, 77};
    for (int32_t t : {5, 40, 77}) EXPECT_TRUE(ends_generation(c, t)) << t;
    for (int32_t t : {0, 4, 41, 99}) EXPECT_FALSE(ends_generation(c, t)) << t;
    c.end_of_generation_ids.clear();
    EXPECT_TRUE(ends_generation(c, 5));  // EOS alone still stops (configs built by hand)
}

// Generation stops on an end-of-generation id that is not EOS (Llama 3's <|eot_id|> next to its
// <|end_of_text|>), before emitting it; --ignore-eos (stop_at_eos = false) runs through it.
TEST(SpecialTokens, GenerationStopsOnAnyEndOfGenerationId) {
    testing::TempDir dir("snapdoc-special-tokens");
    TinyModelSpec spec;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(spec), DType::F32);
    Model m = load_model(dir / "m.gguf");
    GenerationRequest req;
    req.prompt = {1, 50, 60};
    req.max_new_tokens = 8;
    req.sampling.temperature = 0;
    req.stop_at_eos = false;
    const GenerationResult free_run = generate(*make_cpu_backend(m), req);
    ASSERT_EQ(free_run.tokens.size(), 8u);
    // Make the 4th greedy token an end-of-generation id (unless it already came earlier).
    const int32_t stop = free_run.tokens[3];
    const auto first =
        std::find(free_run.tokens.begin(), free_run.tokens.end(), stop) - free_run.tokens.begin();
    ASSERT_NE(stop, m.config.eos_id);
    m.config.end_of_generation_ids = {stop};
    auto backend = make_cpu_backend(m);
    EXPECT_EQ(generate(*backend, req).tokens, free_run.tokens);
    req.stop_at_eos = true;
    const GenerationResult stopped = generate(*backend, req);
    EXPECT_EQ(stopped.stop, StopReason::EndOfSequence);
    EXPECT_EQ(stopped.tokens, std::vector<int32_t>(free_run.tokens.begin(), free_run.tokens.begin() + first));
}

}  // namespace
}  // namespace snapdoc
