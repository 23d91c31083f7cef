// Byte-level BPE on small handmade vocabularies: merge order by rank (not by position or
// vocabulary order), ignore_merges, added tokens (control never matched in text, user-defined
// matched longest first), invalid UTF-8, decoding through the streaming decoder, threads, and the
// errors a broken vocabulary gives.
#include <gtest/gtest.h>

#include <random>

#include "engine/common/error.h"
#include "engine/tokenizer/bpe_byte_map.h"
#include "engine/tokenizer/bpe_vocab.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc {
namespace {

constexpr int32_t kNormal = static_cast<int32_t>(GgufTokenType::Normal);
constexpr int32_t kControl = static_cast<int32_t>(GgufTokenType::Control);
constexpr int32_t kUserDefined = static_cast<int32_t>(GgufTokenType::UserDefined);

// All 256 byte tokens (ids 0..255, in byte order), then `extra` merge results in order, then
// added tokens. Merges are given as byte strings ("h e"), mapped to byte-level text here.
struct VocabBuilder {
    BpeVocab v;
    explicit VocabBuilder(const std::string& pre = "qwen2") {
        v.pre = pre;
        for (int b = 0; b < 256; ++b) {
            v.tokens.push_back(byte_level::encode(std::string(1, static_cast<char>(b))));
            v.types.push_back(kNormal);
        }
    }
    int32_t id(const std::string& bytes) const {
        const std::string t = byte_level::encode(bytes);
        for (std::size_t i = 0; i < v.tokens.size(); ++i)
            if (v.tokens[i] == t) return static_cast<int32_t>(i);
        return -1;
    }
    VocabBuilder& merge(const std::string& a, const std::string& b) {
        v.merges.emplace_back(byte_level::encode(a), byte_level::encode(b));
        if (id(a + b) < 0) token(a + b);
        return *this;
    }
    VocabBuilder& token(const std::string& bytes) {
        v.tokens.push_back(byte_level::encode(bytes));
        v.types.push_back(kNormal);
        return *this;
    }
    VocabBuilder& added(const std::string& text, int32_t type) {
        v.tokens.push_back(text);
        v.types.push_back(type);
        return *this;
    }
    Tokenizer build() const { return Tokenizer::from_bpe_vocab(v); }
};

std::vector<int32_t> ids_of(const VocabBuilder& b, std::initializer_list<const char*> pieces) {
    std::vector<int32_t> out;
    for (const char* p : pieces) out.push_back(b.id(p));
    return out;
}

std::string stream_all(const Tokenizer& tok, const std::vector<int32_t>& ids,
                       std::vector<std::string>* parts = nullptr) {
    StreamDecoder s(tok);
    std::string out;
    for (int32_t id : ids) {
        const std::string p = s.push(id);
        if (parts) parts->push_back(p);
        out += p;
    }
    return out + s.flush();
}

TEST(BpeTokenizer, MergesApplyByRankNotByPosition) {
    VocabBuilder b;
    b.merge("b", "c").merge("a", "b").merge("a", "bc");
    const Tokenizer tok = b.build();
    // "ab" (rank 1) is left of "bc" (rank 0), but the lower rank wins; then "a"+"bc" (rank 2).
    EXPECT_EQ(tok.encode("abc"), ids_of(b, {"abc"}));
    EXPECT_EQ(tok.encode("abcab"), ids_of(b, {"abc", "ab"}));
    // Equal ranks: the leftmost pair first.
    VocabBuilder c;
    c.merge("a", "a");
    EXPECT_EQ(c.build().encode("aaa"), ids_of(c, {"aa", "a"}));
    EXPECT_EQ(c.build().encode("aaaa"), ids_of(c, {"aa", "aa"}));
}

TEST(BpeTokenizer, EachPreTokenIsMergedOnItsOwn) {
    VocabBuilder b;
    b.merge(" ", "w").merge(" w", "o").merge("o", " ");
    const Tokenizer tok = b.build();
    // "o w" splits into "o", " wo": the merge "o"+" " never crosses the word boundary.
    EXPECT_EQ(tok.encode("o wo"), ids_of(b, {"o", " wo"}));
    EXPECT_EQ(tok.decode(tok.encode("o wo")), "o wo");
}

TEST(BpeTokenizer, IgnoreMergesTakesWholeWordsFromTheVocabulary) {
    VocabBuilder llama3("llama-bpe"), qwen("qwen2");
    for (VocabBuilder* b : {&llama3, &qwen}) {
        b->merge("x", "y");
        b->token("xyz");  // no merge makes it
    }
    llama3.v.bos_id = 0;
    EXPECT_EQ(llama3.build().encode("xyz"), ids_of(llama3, {"xyz"}));
    EXPECT_EQ(qwen.build().encode("xyz"), ids_of(qwen, {"xy", "z"}));
    qwen.v.ignore_merges = true;  // tokenizer.json's flag wins over the preset
    EXPECT_EQ(qwen.build().encode("xyz"), ids_of(qwen, {"xyz"}));
}

TEST(BpeTokenizer, ControlTokenTextStaysText) {
    VocabBuilder b("llama-bpe");
    b.merge("<", "|").merge("|", ">");
    b.added("<|eot_id|>", kControl).added("<|begin_of_text|>", kControl);
    const int32_t eot = static_cast<int32_t>(b.v.tokens.size()) - 2;
    b.v.bos_id = eot + 1;
    const Tokenizer tok = b.build();
    EXPECT_EQ(tok.piece_to_id("<|eot_id|>"), eot);
    EXPECT_TRUE(tok.is_control(eot));
    EXPECT_EQ(tok.piece(eot), "");
    const std::string doc = "a <|eot_id|> b<|begin_of_text|>";
    const auto ids = tok.encode(doc);
    for (int32_t id : ids) EXPECT_FALSE(tok.is_control(id)) << id;
    EXPECT_EQ(tok.decode(ids), doc);
    EXPECT_TRUE(tok.add_bos());  // llama-bpe's default
    EXPECT_FALSE(tok.adds_dummy_prefix());
    EXPECT_EQ(tok.kind(), TokenizerKind::ByteLevelBpe);
}

TEST(BpeTokenizer, UserDefinedTokensAreMatchedLongestFirst) {
    VocabBuilder b;
    b.added("<tool>", kUserDefined).added("<tool><x>", kUserDefined);
    const int32_t tool = 256, tool_x = 257;
    const Tokenizer tok = b.build();
    EXPECT_EQ(tok.encode("a<tool><x>b<tool>"), (std::vector<int32_t>{b.id("a"), tool_x, b.id("b"), tool}));
    EXPECT_EQ(tok.piece(tool), "<tool>");  // user-defined tokens decode as their text
    EXPECT_EQ(tok.decode(tok.encode("a<tool><x>b<tool>")), "a<tool><x>b<tool>");
}

TEST(BpeTokenizer, InvalidUtf8BecomesReplacementCharacters) {
    VocabBuilder b;
    const Tokenizer tok = b.build();
    const std::string bad =
        "a\xFF"
        "b\xE2\x82"
        "c\xC0\x80";
    const std::string replaced =
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD\xEF\xBF\xBD"
        "c\xEF\xBF\xBD\xEF\xBF\xBD";
    EXPECT_EQ(tok.encode(bad), tok.encode(replaced));
    EXPECT_EQ(tok.decode(tok.encode(bad)), replaced);
    // Decoding bytes that are not UTF-8 (a lone byte token) gives U+FFFD too.
    EXPECT_EQ(tok.decode({b.id("\xE2")}), "\xEF\xBF\xBD");
    EXPECT_EQ(tok.piece(b.id("\xE2")), "\xE2");
}

TEST(BpeTokenizer, StreamDecoderEmitsCharactersOnceComplete) {
    VocabBuilder b;
    b.merge("\xF0", "\x9F").merge("\xF0\x9F", "\x9A");  // three bytes of 🚀 (F0 9F 9A 80) in one token
    const Tokenizer tok = b.build();
    const std::string text = "x\xC3\xA9y\xF0\x9F\x9A\x80!";  // "xéy🚀!"
    const std::vector<int32_t> ids = {
        b.id("x"), b.id("\xC3"), b.id("\xA9"), b.id("y"), b.id("\xF0\x9F\x9A"), b.id("\x80"), b.id("!")};
    std::vector<std::string> parts;
    EXPECT_EQ(stream_all(tok, ids, &parts), text);
    EXPECT_EQ(parts, (std::vector<std::string>{"x", "", "\xC3\xA9", "y", "", "\xF0\x9F\x9A\x80", "!"}));
    EXPECT_EQ(tok.encode(text), ids);
    // An unfinished character at the end comes out as U+FFFD per byte, as decode() gives it.
    const std::vector<int32_t> cut = {b.id("x"), b.id("\xF0\x9F\x9A")};
    EXPECT_EQ(stream_all(tok, cut), tok.decode(cut));
    EXPECT_EQ(tok.decode(cut), "x\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    StreamDecoder s(tok);
    EXPECT_THROW(s.push(100000), Error);
}

TEST(BpeTokenizer, RoundTripsAndThreadsGiveTheSameIds) {
    VocabBuilder b;
    for (const char* p : {"th", "he", "in", "er", "an", " t", " a", "re", "on", " th"})
        b.merge(std::string(p, 1), std::string(p + 1));
    b.merge(" th", "e");
    Tokenizer tok = b.build();
    std::mt19937 rng(7);
    const std::vector<std::string> words = {"the", " then", " an",  "\n\n", "  ", " 12345",
                                            "é",   "日本",  "🦙", ",",    "re"};
    std::string text;
    while (text.size() < 3 * 1024 * 1024) text += words[rng() % words.size()];
    const auto ids = tok.encode(text);
    EXPECT_EQ(tok.decode(ids), text);
    tok.set_max_encode_threads(1);
    EXPECT_EQ(tok.encode(text), ids);
    EXPECT_TRUE(tok.encodes_in_chunks());
}

TEST(BpeTokenizer, RandomBytesRoundTripThroughDecodeAndTheStreamDecoder) {
    VocabBuilder b("llama-bpe");
    b.v.bos_id = 0;
    for (const char* p : {"ab", "bc", "  ", "\n\n", "\xC3\xA9", "\xE6\x97"})
        b.merge(std::string(p, 1), std::string(p + 1));
    b.merge("\xE6\x97", "\xA5");  // 日
    const Tokenizer tok = b.build();
    std::mt19937 rng(11);
    const std::string alphabet = "abc \n\t'1\xC3\xA9\xE6\x97\xA5\xFF\x80";
    for (int round = 0; round < 300; ++round) {
        std::string s;
        const int n = static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
        const auto ids = tok.encode(s);
        const std::string expected = utf8::sanitize(s);  // invalid bytes are U+FFFD, one per byte
        EXPECT_EQ(tok.decode(ids), expected);
        EXPECT_EQ(stream_all(tok, ids), expected);
        EXPECT_EQ(tok.encode(expected), ids);
    }
}

TEST(BpeTokenizer, BrokenVocabulariesAreOneClearError) {
    auto message = [](const BpeVocab& v) -> std::string {
        try {
            (void)Tokenizer::from_bpe_vocab(v);
        } catch (const FormatError& e) {
            return e.what();
        }
        return "no error";
    };
    VocabBuilder ok;
    ok.merge("a", "b");
    BpeVocab v = ok.v;
    v.merges.emplace_back("a", "zz");
    EXPECT_NE(message(v).find("merge 1 'a zz': its right side is not in the vocabulary"), std::string::npos)
        << message(v);
    v = ok.v;
    v.merges.emplace_back("b", "a");  // "ba" is no token
    EXPECT_NE(message(v).find("merge 1 'b a': its result is not in the vocabulary"), std::string::npos)
        << message(v);
    v = ok.v;
    v.pre = "no-such-pre";
    EXPECT_NE(message(v).find("unknown pre-tokenizer 'no-such-pre'"), std::string::npos) << message(v);
    v = ok.v;
    v.types.pop_back();  // a truncated token_type array
    EXPECT_NE(message(v).find("256 token types for 257 tokens"), std::string::npos) << message(v);
    v = ok.v;
    v.eos_id = 9999;
    EXPECT_NE(message(v).find("eos token id 9999 is outside the 257 tokens"), std::string::npos)
        << message(v);
    v = ok.v;
    v.tokens[3].clear();
    EXPECT_NE(message(v).find("token 3 is empty"), std::string::npos) << message(v);
    v = ok.v;
    v.types[5] = 42;
    EXPECT_NE(message(v).find("token 5 has an unknown type 42"), std::string::npos) << message(v);
    EXPECT_NE(message(BpeVocab{}).find("has no tokens"), std::string::npos);
}

TEST(BpeTokenizer, MissingByteTokensNeedAnUnknownToken) {
    BpeVocab v;
    v.pre = "gpt-2";
    v.tokens = {"a", "b", "<unk>"};
    const Tokenizer no_unk = Tokenizer::from_bpe_vocab(v);
    EXPECT_EQ(no_unk.encode("ab"), (std::vector<int32_t>{0, 1}));
    EXPECT_THROW(no_unk.encode("abc"), Error);
    v.unk_id = 2;
    EXPECT_EQ(Tokenizer::from_bpe_vocab(v).encode("abc"), (std::vector<int32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace snapdoc
