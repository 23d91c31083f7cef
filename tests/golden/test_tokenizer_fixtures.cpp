// The tokenizer against real vocabularies: stories260K's tok512 (the model's own greedy output
// must encode to exactly the ids it generated), its GGUF copy, and the 32K-piece Llama 2 tokenizer
// on all of tinyshakespeare (chunked, multi-threaded encode == the library on the whole text).
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <sstream>

#include "engine/model/model.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace snapdoc {
namespace {

const char* const kTok512 = "stories260K/tok512.model";
const char* const kGguf = "stories260K/stories260K.gguf";
const char* const kExpectedText = "stories260K/expected-greedy-200.txt";
const char* const kExpectedIds = "stories260K/expected-greedy-200.ids";
const char* const kLlama2 = "llama2-tokenizer/tokenizer.model";
const char* const kShakespeare = "texts/tinyshakespeare.txt";

std::vector<int32_t> read_ids(const std::string& relative) {
    std::istringstream in(read_text_file(fixture_path(relative)));
    std::vector<int32_t> ids;
    for (int32_t id; in >> id;) ids.push_back(id);
    return ids;
}

// The generated ids, without the BOS the run started from.
std::vector<int32_t> expected_generated_ids() {
    std::vector<int32_t> ids = read_ids(kExpectedIds);
    EXPECT_EQ(ids.size(), 201u);
    EXPECT_EQ(ids.at(0), 1);
    ids.erase(ids.begin());
    return ids;
}

std::string stream_all(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    StreamDecoder stream(tok);
    std::string out;
    for (int32_t id : ids) out += stream.push(id);
    return out + stream.flush();
}

void expect_matches_greedy_run(const Tokenizer& tok) {
    const std::string text = read_text_file(fixture_path(kExpectedText));
    const std::vector<int32_t> ids = expected_generated_ids();
    EXPECT_EQ(tok.encode(text), ids);
    EXPECT_EQ(tok.decode(ids), text);
    EXPECT_EQ(stream_all(tok, ids), text);
    std::vector<int32_t> with_bos = ids;
    with_bos.insert(with_bos.begin(), tok.bos_id());
    EXPECT_EQ(tok.decode(with_bos), text);
    EXPECT_EQ(stream_all(tok, with_bos), text);
}

TEST(TokenizerFixtures, Tok512EncodesTheGreedyOutputToItsIds) {
    SNAPDOC_REQUIRE_FIXTURE(kTok512);
    SNAPDOC_REQUIRE_FIXTURE(kExpectedIds);
    const Tokenizer tok = Tokenizer::from_file(fixture_path(kTok512).string());
    EXPECT_EQ(tok.vocab_size(), 512);
    EXPECT_EQ(tok.bos_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    expect_matches_greedy_run(tok);
}

TEST(TokenizerFixtures, ProtoRebuiltFromTok512TokenizesIdentically) {
    SNAPDOC_REQUIRE_FIXTURE(kTok512);
    SNAPDOC_REQUIRE_FIXTURE(kExpectedIds);
    SNAPDOC_REQUIRE_FIXTURE(kShakespeare);
    const std::string original = read_text_file(fixture_path(kTok512));
    const Tokenizer rebuilt = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(vocab_from_sentencepiece(original)));
    expect_matches_greedy_run(rebuilt);
    const std::string text = read_text_file(fixture_path(kShakespeare)).substr(0, 200000);
    EXPECT_EQ(rebuilt.encode(text), Tokenizer::from_serialized_proto(original).encode(text));
}

TEST(TokenizerFixtures, GgufVocabularyTokenizesLikeTok512) {
    SNAPDOC_REQUIRE_FIXTURE(kGguf);
    SNAPDOC_REQUIRE_FIXTURE(kTok512);
    SNAPDOC_REQUIRE_FIXTURE(kExpectedIds);
    SNAPDOC_REQUIRE_FIXTURE(kShakespeare);
    const Model model = load_model(fixture_path(kGguf));
    const Tokenizer tok = Tokenizer::from_model(model);
    EXPECT_EQ(tok.vocab_size(), 512);
    expect_matches_greedy_run(tok);
    const Tokenizer reference = Tokenizer::from_file(fixture_path(kTok512).string());
    const std::string text = read_text_file(fixture_path(kShakespeare)).substr(0, 200000);
    EXPECT_EQ(tok.encode(text), reference.encode(text));
    for (const std::string s : {"</s> <s> [INST] <unk>", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "  two  spaces "})
        EXPECT_EQ(tok.encode(s), reference.encode(s)) << s;
}

TEST(TokenizerFixtures, Llama2ChunkedEncodeEqualsWholeTextOnTinyShakespeare) {
    SNAPDOC_REQUIRE_FIXTURE(kLlama2);
    SNAPDOC_REQUIRE_FIXTURE(kShakespeare);
    const std::string path = fixture_path(kLlama2).string();
    const std::string text = read_text_file(fixture_path(kShakespeare));
    const Tokenizer tok = Tokenizer::from_file(path);
    EXPECT_EQ(tok.vocab_size(), 32000);
    EXPECT_TRUE(tok.encodes_in_chunks());

    sentencepiece::SentencePieceProcessor whole;
    ASSERT_TRUE(whole.Load(path).ok());
    std::vector<int> expected;
    ASSERT_TRUE(whole.Encode(text, &expected).ok());
    const std::vector<int32_t> ids = tok.encode(text);
    EXPECT_EQ(ids, expected);
    EXPECT_GT(ids.size(), 360000u);  // README: about 369K tokens
    EXPECT_EQ(tok.decode(ids), text);
    // Streaming the first 20K tokens gives the same text as decoding them.
    const std::vector<int32_t> head(ids.begin(), ids.begin() + 20000);
    EXPECT_EQ(stream_all(tok, head), tok.decode(head));
}

TEST(TokenizerFixtures, Llama2ProtoRebuiltTokenizesIdentically) {
    SNAPDOC_REQUIRE_FIXTURE(kLlama2);
    SNAPDOC_REQUIRE_FIXTURE(kShakespeare);
    const std::string original = read_text_file(fixture_path(kLlama2));
    const Tokenizer a = Tokenizer::from_serialized_proto(original);
    const Tokenizer b = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(vocab_from_sentencepiece(original)));
    const std::string text = read_text_file(fixture_path(kShakespeare)).substr(0, 300000) +
                             "\ncaf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC \t x\r\n";
    EXPECT_EQ(b.encode(text), a.encode(text));
    EXPECT_EQ(b.bos_id(), a.bos_id());
    EXPECT_EQ(b.eos_id(), a.eos_id());
}

TEST(TokenizerFixtures, Llama2ControlTextStaysText) {
    SNAPDOC_REQUIRE_FIXTURE(kLlama2);
    const Tokenizer tok = Tokenizer::from_file(fixture_path(kLlama2).string());
    const std::string text = "[INST] <<SYS>> </s><s> <unk> [/INST]";
    const auto ids = tok.encode(text);
    for (int32_t id : ids) EXPECT_FALSE(tok.is_control(id)) << id;
    for (int32_t id : ids) EXPECT_NE(id, tok.unk_id());
    EXPECT_EQ(tok.decode(ids), text);
}

}  // namespace
}  // namespace snapdoc
