// The pre-tokenizer presets on hard text: Unicode letters and marks, digit groups as each preset
// splits them, whitespace runs, contractions, CJK, emoji. Expected splits follow the regexes of the
// models' tokenizer.json files and llama.cpp (its pieces for the modelzoo texts agree with these).
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/tokenizer/pretokenizer.h"

namespace snapdoc {
namespace {

using Pieces = std::vector<std::string>;

Pieces split(const char* pre, const std::string& text) {
    return Pretokenizer(pretokenizer_preset(pre).regexes).split(text);
}

std::string joined(const Pieces& p) {
    std::string s;
    for (const auto& x : p) s += x;
    return s;
}

TEST(BpePretokenizer, Llama3GroupsDigitsByThreeAndKeepsTheLeadingSpaceOnWords) {
    EXPECT_EQ(split("llama-bpe", "Numbers: 1234567 3.14159 0x1F"),
              (Pieces{"Numbers", ":", " ", "123", "456", "7", " ", "3", ".", "141", "59", " ", "0", "x", "1",
                      "F"}));
    EXPECT_EQ(split("llama-bpe", "Hello world"), (Pieces{"Hello", " world"}));
}

TEST(BpePretokenizer, Qwen2SplitsEveryDigit) {
    EXPECT_EQ(split("qwen2", "x 2024-10"), (Pieces{"x", " ", "2", "0", "2", "4", "-", "1", "0"}));
}

TEST(BpePretokenizer, Gpt2KeepsDigitRunsWithTheirSpace) {
    EXPECT_EQ(split("gpt-2", "in 2024, 1234567 ways"), (Pieces{"in", " 2024", ",", " 1234567", " ways"}));
    EXPECT_EQ(split("gpt2", "a  b"), (Pieces{"a", " ", " b"}));
}

TEST(BpePretokenizer, DefaultIsLlamaCppsFallbackChain) {
    // Punctuation runs, then the GPT-2 pattern, then digit runs, then groups of three ASCII digits.
    EXPECT_EQ(split("default", "Hello, world! 1234"), (Pieces{"Hello", ",", " world", "!", " ", "123", "4"}));
    EXPECT_EQ(split("", "Hello"), (Pieces{"Hello"}));  // no `pre` at all is llama.cpp's default too
}

TEST(BpePretokenizer, WhitespaceRunsAndNewlines) {
    EXPECT_EQ(split("llama-bpe", "  leading spaces\n\n\ttabs\r\nand  double   trailing "),
              (Pieces{" ", " leading", " spaces", "\n\n", "\ttabs", "\r\n", "and", " ", " double", "  ",
                      " trailing", " "}));
    EXPECT_EQ(split("qwen2", "):\n    return"), (Pieces{"):\n", "   ", " return"}));
}

TEST(BpePretokenizer, Contractions) {
    EXPECT_EQ(split("llama-bpe", "I've he's 'RE I'LL"),
              (Pieces{"I", "'ve", " he", "'s", " '", "RE", " I", "'LL"}));
    // GPT-2's contractions are lower-case only.
    EXPECT_EQ(split("gpt-2", "I'LL it's"), (Pieces{"I", "'", "LL", " it", "'s"}));
}

TEST(BpePretokenizer, UnicodeLettersMarksCjkAndEmoji) {
    EXPECT_EQ(split("llama-bpe", "Café naïve Straße русский"),
              (Pieces{"Café", " naïve", " Straße", " русский"}));
    // A combining mark is not a letter: decomposed "é" ends the word.
    EXPECT_EQ(split("llama-bpe", "cafe\xCC\x81!"), (Pieces{"cafe", "\xCC\x81!"}));
    EXPECT_EQ(split("llama-bpe", "我想在apple工作1314151天～ 日本語"),
              (Pieces{"我想在apple工作", "131", "415", "1", "天", "～", " 日本語"}));
    EXPECT_EQ(split("qwen2", "🚀 (normal) 👍🏽"), (Pieces{"🚀", " (", "normal", ")", " 👍🏽"}));
}

TEST(BpePretokenizer, TekkenSplitsCasedWordsAndKeepsSlashesAfterPunctuation) {
    EXPECT_EQ(split("tekken", "HelloWorld HTTPServer"), (Pieces{"Hello", "World", " HTTPServer"}));
    EXPECT_EQ(split("tekken", "a://b 12"), (Pieces{"a", "://", "b", " ", "1", "2"}));
}

TEST(BpePretokenizer, SpecialTokenTextIsOrdinaryText) {
    EXPECT_EQ(split("llama-bpe", "<|eot_id|>"), (Pieces{"<|", "eot", "_id", "|>"}));
    EXPECT_EQ(split("qwen2", "<|im_start|>user"), (Pieces{"<|", "im", "_start", "|>", "user"}));
}

TEST(BpePretokenizer, PiecesAlwaysCoverTheText) {
    const std::string hard = "\t\n \r\n\n  x\xC2\xA0y \xE3\x80\x80z 1 22 333 4444 ''' 's ";
    for (const char* pre : {"llama-bpe", "qwen2", "gpt-2", "default", "tekken"}) {
        const Pieces p = split(pre, hard);
        EXPECT_EQ(joined(p), hard) << pre;
        for (const auto& x : p) EXPECT_FALSE(x.empty()) << pre;
    }
    EXPECT_TRUE(split("qwen2", "").empty());
}

TEST(BpePretokenizer, AliasesAndUnknownNames) {
    EXPECT_EQ(pretokenizer_preset("llama3").name, "llama-bpe");
    EXPECT_TRUE(pretokenizer_preset("llama-bpe").ignore_merges);
    EXPECT_FALSE(pretokenizer_preset("qwen2").ignore_merges);
    try {
        (void)pretokenizer_preset("chatglm-bpe");
        FAIL() << "no error";
    } catch (const FormatError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("unknown pre-tokenizer 'chatglm-bpe'"), std::string::npos) << m;
        for (const char* name : {"llama-bpe", "qwen2", "gpt-2", "default", "tekken"})
            EXPECT_NE(m.find(name), std::string::npos) << m;
    }
    EXPECT_THROW(Pretokenizer({"(unclosed"}), FormatError);
}

TEST(BpePretokenizer, LongRunsDoNotExhaustTheMatcher) {
    const std::string spaces(200000, ' ');
    const Pieces p = split("llama-bpe", spaces + "x");
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].size(), spaces.size() - 1);
    const std::string letters(300000, 'a');
    EXPECT_EQ(split("qwen2", letters).size(), 1u);
}

}  // namespace
}  // namespace snapdoc
