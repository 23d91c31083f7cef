// Tokenizer and StreamDecoder on a tiny SentencePiece model trained on the spot.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <thread>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/tokenizer/text_chunks.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/support/fixtures.h"
#include "tests/support/spm_trainer.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

const std::vector<std::string> kControls = {"[INST]", "[/INST]", "<|im_start|>", "<|im_end|>"};

const std::filesystem::path& scratch_dir() {
    static const testing::TempDir dir("snapdoc-tokenizer-test");  // removed at exit
    return dir.path();
}

const std::filesystem::path& tiny_model_path() {
    static const std::filesystem::path path = train_tiny_sentencepiece(scratch_dir(), 330, true, kControls);
    return path;
}

const Tokenizer& tiny() {
    static const Tokenizer tok = Tokenizer::from_file(tiny_model_path().string());
    return tok;
}

std::string stream_all(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    StreamDecoder stream(tok);
    std::string out;
    for (int32_t id : ids) out += stream.push(id);
    out += stream.flush();
    return out;
}

// A long, multi-paragraph text (about 200 KB) for the chunked path.
std::string long_text() {
    std::string corpus = tiny_training_corpus();
    std::string text;
    int paragraph = 0;
    while (text.size() < 200 * 1024) {
        text += "  Paragraph " + std::to_string(++paragraph) + ":\n";
        text += corpus.substr(0, 3000 + (paragraph * 977) % 9000);
        text += paragraph % 3 == 0 ? "\n\n" : "\n";
        if (paragraph % 5 == 0) text += " \xE2\x82\xAC leading space and euro\n";
    }
    return text;
}

TEST(Tokenizer, LoadsTheTrainedModel) {
    const Tokenizer& tok = tiny();
    EXPECT_EQ(tok.vocab_size(), 330);
    EXPECT_EQ(tok.bos_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    EXPECT_EQ(tok.unk_id(), 0);
    EXPECT_TRUE(tok.is_control(1));
    EXPECT_TRUE(tok.is_control(2));
    EXPECT_FALSE(tok.is_control(0));
    EXPECT_FALSE(tok.is_control(-1));
    EXPECT_FALSE(tok.is_control(330));
    EXPECT_EQ(tok.piece_to_id("<s>"), 1);
    EXPECT_EQ(tok.piece_to_id("[INST]"), 3);
    EXPECT_EQ(tok.piece_to_id("<|im_end|>"), 6);
    EXPECT_EQ(tok.piece_to_id("<unk>"), 0);
    EXPECT_EQ(tok.piece_to_id("no such piece"), -1);
    EXPECT_EQ(tok.raw_piece(7), "<0x00>");
    EXPECT_TRUE(tok.encodes_in_chunks());
}

TEST(Tokenizer, RoundTripsText) {
    const Tokenizer& tok = tiny();
    for (const std::string text :
         {"The cat found a red ball.", "Unseen: Xylophone 12345 zebra!", "two  spaces,   three, trailing ",
          "tabs\tand\nnewlines\r\n\n", "caf\xC3\xA9 \xE2\x82\xAC \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80",
          "a", "Z", "\n"}) {
        const auto ids = tok.encode(text);
        EXPECT_FALSE(ids.empty()) << text;
        EXPECT_EQ(tok.decode(ids), text) << text;
    }
    // A leading space survives: the dummy prefix is separate from it.
    EXPECT_EQ(tok.decode(tok.encode(" leading")), " leading");
    EXPECT_EQ(tok.decode(tok.encode(std::string("nul\0inside", 10))), std::string("nul\0inside", 10));
}

TEST(Tokenizer, EmptyText) {
    EXPECT_TRUE(tiny().encode("").empty());
    EXPECT_EQ(tiny().decode({}), "");
    EXPECT_EQ(stream_all(tiny(), {}), "");
}

TEST(Tokenizer, ControlPiecesInTextStayText) {
    const Tokenizer& tok = tiny();
    const std::string text = "</s> <s> [INST] <unk> <|im_start|>user [/INST] <|im_end|>";
    const auto ids = tok.encode(text);
    for (int32_t id : ids) {
        EXPECT_FALSE(tok.is_control(id)) << "id " << id << " '" << tok.raw_piece(id) << "'";
        EXPECT_NE(id, tok.unk_id());
    }
    EXPECT_EQ(tok.decode(ids), text);
}

TEST(Tokenizer, SpecialTokensAreAddedById) {
    // How chat templates build prompts: specials by id, text by encode().
    const Tokenizer& tok = tiny();
    std::vector<int32_t> ids = {tok.bos_id(), tok.piece_to_id("[INST]")};
    const auto q = tok.encode("the cat?");
    ids.insert(ids.end(), q.begin(), q.end());
    ids.push_back(tok.piece_to_id("[/INST]"));
    // Control tokens decode to nothing, so the text reads as the question alone.
    EXPECT_EQ(tok.decode(ids), "the cat?");
}

TEST(Tokenizer, InvalidUtf8BecomesReplacementCharacters) {
    const Tokenizer& tok = tiny();
    for (const std::string& bad : {std::string("\xFF\xFE ok \xE2\x82"), std::string("\xC0\xAF"), std::string("\xED\xA0\x80"),
                                  std::string("ab\x80" "cd"), std::string("\xF4\x90\x80\x80"), std::string("\xE2\x82")}) {
        std::vector<int32_t> ids;
        ASSERT_NO_THROW(ids = tok.encode(bad));
        EXPECT_EQ(tok.decode(ids), utf8::sanitize(bad));
        EXPECT_EQ(tok.encode(bad), tok.encode(utf8::sanitize(bad)));
    }
    EXPECT_EQ(utf8::sanitize("\xFF" "a\xE2\x82"), "\xEF\xBF\xBD" "a\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Tokenizer, PieceGivesTheTextOfOneToken) {
    const Tokenizer& tok = tiny();
    EXPECT_EQ(tok.piece(1), "");             // control
    EXPECT_EQ(tok.piece(7 + 0x41), "A");     // <0x41>
    EXPECT_EQ(tok.piece(7 + 0xE2), "\xE2");  // half a character: a single raw byte
    const auto ids = tok.encode("the cat");
    ASSERT_FALSE(ids.empty());
    const std::string first = tok.piece(ids[0]);
    EXPECT_EQ(first[0], ' ');  // U+2581 becomes a space, also at the start
    std::string joined;
    for (int32_t id : ids) joined += tok.piece(id);
    EXPECT_EQ(joined, " the cat");
    EXPECT_THROW(tok.piece(-1), Error);
    EXPECT_THROW(tok.piece(330), Error);
}

TEST(Tokenizer, BadIdsAndBadModelsThrow) {
    EXPECT_THROW(tiny().decode({5, 330}), Error);
    EXPECT_THROW(tiny().decode({-1}), Error);
    EXPECT_THROW(Tokenizer::from_serialized_proto(""), FormatError);
    EXPECT_THROW(Tokenizer::from_serialized_proto("definitely not a protobuf \xff\xff\xff"), FormatError);
    EXPECT_THROW(Tokenizer::from_serialized_proto(std::string("\x0a\x02\x0a\x00", 4)), FormatError);  // no <unk>
    const std::string bytes = read_text_file(tiny_model_path());
    EXPECT_THROW(Tokenizer::from_serialized_proto(bytes.substr(0, bytes.size() - 7)), FormatError);
    std::mt19937 rng(7);
    for (int i = 0; i < 50; ++i) {
        std::string garbage(1 + rng() % 300, '\0');
        for (char& c : garbage) c = static_cast<char>(rng());
        EXPECT_THROW(Tokenizer::from_serialized_proto(garbage), FormatError);
    }
    EXPECT_THROW(Tokenizer::from_file((scratch_dir() / "missing.model").string()), Error);
}

TEST(Tokenizer, FromModelWithoutTokenizerNamesTheModel) {
    Model model;
    model.path = "/models/weights-only.gguf";
    try {
        (void)Tokenizer::from_model(model);
        FAIL() << "expected FormatError";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("weights-only.gguf"), std::string::npos) << e.what();
    }
    model.tokenizer_proto = read_text_file(tiny_model_path());
    EXPECT_EQ(Tokenizer::from_model(model).vocab_size(), 330);
}

TEST(Tokenizer, LongTextsEncodeExactlyAsOneString) {
    const Tokenizer& tok = tiny();
    const std::string text = long_text();
    sentencepiece::SentencePieceProcessor reference;
    ASSERT_TRUE(reference.Load(tiny_model_path().string()).ok());
    std::vector<int> expected;
    ASSERT_TRUE(reference.Encode(text, &expected).ok());
    EXPECT_GT(split_after_newlines(text, 16 * 1024).size(), 4u);
    EXPECT_EQ(tok.encode(text), expected);
    EXPECT_EQ(tok.decode(tok.encode(text)), text);
    // A text starting with a newline or a space: the dummy prefix goes only before the first piece.
    for (const std::string prefix : {"\n", " ", "\n\n  "}) {
        std::vector<int> ref;
        ASSERT_TRUE(reference.Encode(prefix + text, &ref).ok());
        EXPECT_EQ(tok.encode(prefix + text), ref) << "prefix of " << prefix.size() << " bytes";
    }
}

TEST(Tokenizer, EncodeIsThreadSafe) {
    const Tokenizer& tok = tiny();
    const std::string text = long_text();
    const auto expected = tok.encode(text);
    std::vector<std::vector<int32_t>> results(4);
    std::vector<std::thread> threads;
    for (auto& r : results) threads.emplace_back([&] { r = tok.encode(text); });
    for (auto& t : threads) t.join();
    for (const auto& r : results) EXPECT_EQ(r, expected);
}

TEST(TextChunks, CoverTheTextAndEndAfterNewlines) {
    const std::string text = "aaaa\nbb\ncccccccc\nd\n\neeeeeeeeeeeeeeeeeeeee";
    for (std::size_t target : {1u, 3u, 5u, 8u, 100u}) {
        const auto chunks = split_after_newlines(text, target);
        std::string joined;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            joined += chunks[i];
            if (i + 1 < chunks.size()) {
                EXPECT_EQ(chunks[i].back(), '\n');
                EXPECT_GE(chunks[i].size(), std::min(target, chunks[i].size()));
            }
        }
        EXPECT_EQ(joined, text) << "target " << target;
    }
    EXPECT_EQ(split_after_newlines("no newline at all", 4).size(), 1u);
    EXPECT_EQ(split_after_newlines("", 4).size(), 1u);
}

TEST(StreamDecoder, MatchesDecodeOnEncodedText) {
    const Tokenizer& tok = tiny();
    for (const std::string text : {"The cat found a red ball.", " leading space", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 ok",
                                   "\xE6\x97\xA5\xE6\x9C\xAC", "  ", "Line\n\nLine"}) {
        const auto ids = tok.encode(text);
        EXPECT_EQ(stream_all(tok, ids), tok.decode(ids)) << text;
        // Generation usually follows a BOS and other control tokens.
        std::vector<int32_t> with_controls = {1, 3};
        with_controls.insert(with_controls.end(), ids.begin(), ids.end());
        with_controls.push_back(2);
        EXPECT_EQ(stream_all(tok, with_controls), tok.decode(with_controls)) << text;
    }
}

TEST(StreamDecoder, DropsOnlyTheSequenceInitialSpace) {
    const Tokenizer& tok = tiny();
    const auto ids = tok.encode("hello world");
    StreamDecoder stream(tok);
    std::string out;
    for (int32_t id : ids) out += stream.push(id);
    EXPECT_EQ(out, "hello world");
    EXPECT_EQ(stream.flush(), "");
}

TEST(StreamDecoder, HoldsBackIncompleteCharacters) {
    const Tokenizer& tok = tiny();
    const int32_t b = 7;  // <0x00>
    StreamDecoder stream(tok);
    EXPECT_EQ(stream.push(b + 0xE2), "");
    EXPECT_EQ(stream.push(b + 0x82), "");
    EXPECT_EQ(stream.push(b + 0xAC), "\xE2\x82\xAC");  // € complete
    EXPECT_EQ(stream.push(b + 0xF0), "");
    EXPECT_EQ(stream.push(b + 0x9F), "");
    EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD\xEF\xBF\xBD");  // never completed: one U+FFFD per byte
}

TEST(StreamDecoder, InvalidByteRunsStayBounded) {
    // A model emitting endless broken UTF-8 must not make each push slower.
    const Tokenizer& tok = tiny();
    std::vector<int32_t> ids;
    for (int i = 0; i < 3000; ++i) ids.push_back(7 + (i % 2 == 0 ? 0xE2 : 0x82));
    EXPECT_EQ(stream_all(tok, ids), tok.decode(ids));
}

TEST(StreamDecoder, MatchesDecodeOnRandomIds) {
    const Tokenizer& tok = tiny();
    std::mt19937 rng(1234);
    const int n = tok.vocab_size();
    for (int trial = 0; trial < 400; ++trial) {
        std::vector<int32_t> ids(1 + rng() % 40);
        for (int32_t& id : ids) {
            const unsigned kind = rng() % 10;
            if (kind < 4) id = 7 + static_cast<int32_t>(rng() % 256);                         // any byte
            else if (kind < 6) id = 7 + 0x80 + static_cast<int32_t>(rng() % 0x78);           // lead/continuation bytes
            else if (kind == 6) id = static_cast<int32_t>(rng() % 7);                        // specials and controls
            else id = static_cast<int32_t>(rng() % n);                                       // anything
        }
        ASSERT_EQ(stream_all(tok, ids), tok.decode(ids)) << "trial " << trial;
    }
    // Sequences built from valid characters split into byte pieces, mixed with words.
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int32_t> ids;
        for (int k = 0; k < 12; ++k) {
            if (rng() % 3 == 0) {
                const auto word = tok.encode(rng() % 2 ? "the cat" : " ok");
                ids.insert(ids.end(), word.begin(), word.end());
            } else {
                const char* chars[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "A"};
                for (char c : std::string(chars[rng() % 4])) ids.push_back(7 + static_cast<uint8_t>(c));
            }
        }
        ASSERT_EQ(stream_all(tok, ids), tok.decode(ids)) << "trial " << trial;
    }
}

TEST(StreamDecoder, MatchesDecodeWithUnusualPieces) {
    // Sequence starts made only of a lone U+2581 piece, unknown, controls: the leading-space rule.
    const Tokenizer& tok = tiny();
    const int32_t space = tok.piece_to_id("\xE2\x96\x81");
    ASSERT_GE(space, 0);
    const auto word = tok.encode("cat");
    std::vector<std::vector<int32_t>> cases = {
        {space, word[0]},  {space, space, word[0]}, {1, space, 2, word[0]}, {0, word[0]}, {1, 2, 3},
        {space},           {7 + 0x41, word[0]},     {7 + 0xE2, word[0]},    {1, 7 + 0xE2, 7 + 0x82, 1, 7 + 0xAC},
    };
    for (const auto& ids : cases) EXPECT_EQ(stream_all(tok, ids), tok.decode(ids));
}

}  // namespace
}  // namespace snapdoc
