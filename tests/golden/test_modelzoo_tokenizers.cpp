// The tokenizers of the modelzoo fixtures (real Llama 3.1, Qwen2.5, Qwen3, Phi-3.5 and Llama 2
// vocabularies in GGUF files) against llama.cpp's ids for 14 hard texts (tokens.json: `ids` with
// add_special=true and parse_special=false, `ids_no_special` without BOS/EOS), and the same
// vocabularies written as a Hugging Face tokenizer.json (byte-level BPE, and SentencePiece-style
// BPE with merges made from the scores as HF's converter does) through the HF path.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/model.h"
#include "engine/tokenizer/bpe_vocab.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using nlohmann::json;

struct Zoo {
    const char* dir;
    const char* gguf;
};
const Zoo kZoo[] = {{"llama31-tiny", "llama31-tiny-Q8_0.gguf"},
                    {"qwen25-tiny", "qwen25-tiny-F16.gguf"},
                    {"qwen3-tiny", "qwen3-tiny-F16.gguf"},
                    {"phi35-tiny", "phi35-tiny-F16.gguf"},
                    {"spm-llama-tiny", "spm-llama-tiny-Q8_0.gguf"}};

std::string rel(const Zoo& z, const std::string& file) {
    return std::string("modelzoo/") + z.dir + "/" + file;
}

json tokens_json(const Zoo& z) {
    return json::parse(read_text_file(fixture_path(rel(z, "tokens.json"))));
}

GgufVocab vocab_of(const Zoo& z, int n_vocab) {
    const GgufFile g = GgufFile::open(fixture_path(rel(z, z.gguf)));
    GgufVocab v = read_gguf_vocab(g, n_vocab);
    EXPECT_EQ(v.error, "") << z.dir;
    return v;
}

Tokenizer tokenizer_of(const GgufVocab& v) {
    Model m;
    m.path = "modelzoo";
    m.tokenizer_proto = v.proto;
    m.tokenizer_bpe = v.bpe;
    m.tokenizer_add_bos = v.add_bos;
    m.tokenizer_add_eos = v.add_eos;
    return Tokenizer::from_model(m);
}

std::vector<int32_t> with_specials(const Tokenizer& tok, std::vector<int32_t> ids) {
    if (tok.add_bos()) ids.insert(ids.begin(), tok.bos_id());
    if (tok.add_eos()) ids.push_back(tok.eos_id());
    return ids;
}

std::string stream_all(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    StreamDecoder s(tok);
    std::string out;
    for (int32_t id : ids) out += s.push(id);
    return out + s.flush();
}

// Every text of tokens.json: ids exact, and decode / stream decode give the text back.
void expect_matches_llama_cpp(const Tokenizer& tok, const json& expected, const std::string& what) {
    EXPECT_EQ(tok.add_bos(), expected["add_bos"].get<int>() != 0) << what;
    EXPECT_EQ(tok.bos_id(), expected["bos"].get<int>()) << what;
    EXPECT_EQ(tok.eos_id(), expected["eos"].get<int>()) << what;
    for (const json& t : expected["texts"]) {
        const std::string text = t["text"].get<std::string>();
        const auto ids = t["ids"].get<std::vector<int32_t>>();
        const auto plain = t["ids_no_special"].get<std::vector<int32_t>>();
        const std::vector<int32_t> got = tok.encode(text);
        EXPECT_EQ(got, plain) << what << ": '" << text << "'";
        EXPECT_EQ(with_specials(tok, got), ids) << what << ": '" << text << "'";
        if (!utf8::is_valid(text)) continue;
        // SentencePiece's decode drops the dummy prefix's space; a text that starts with spaces of
        // its own loses one of them, as in llama.cpp and the library.
        const std::string back = tok.decode(plain);
        if (tok.kind() == TokenizerKind::ByteLevelBpe || text.empty() || text[0] != ' ') {
            EXPECT_EQ(back, text) << what;
        }
        EXPECT_EQ(stream_all(tok, ids), tok.decode(ids)) << what << ": '" << text << "'";
    }
}

TEST(ModelzooTokenizers, GgufVocabulariesTokenizeAsLlamaCpp) {
    for (const Zoo& z : kZoo) {
        SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
        const json expected = tokens_json(z);
        const GgufVocab v = vocab_of(z, expected["n_vocab"].get<int>());
        const Tokenizer tok = tokenizer_of(v);
        EXPECT_EQ(tok.vocab_size(), expected["n_vocab"].get<int>()) << z.dir;
        EXPECT_EQ(tok.kind() == TokenizerKind::ByteLevelBpe, expected["vocab_type"].get<int>() == 2) << z.dir;
        expect_matches_llama_cpp(tok, expected, z.dir);
    }
}

TEST(ModelzooTokenizers, ByteLevelVocabulariesHaveNoDummyPrefixAndDecodeBytes) {
    const Zoo& z = kZoo[0];
    SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
    const Tokenizer tok = tokenizer_of(vocab_of(z, 128256));
    EXPECT_FALSE(tok.adds_dummy_prefix());
    EXPECT_EQ(tok.piece_to_id("<|eot_id|>"), 128009);
    EXPECT_TRUE(tok.is_control(128009));
    EXPECT_EQ(tok.piece(128009), "");
    EXPECT_EQ(tok.raw_piece(1917), "\xC4\xA0world");  // "Ġworld"
    EXPECT_EQ(tok.piece(1917), " world");
    // Control-token text in a document stays text.
    for (int32_t id : tok.encode("a <|eot_id|> b <|begin_of_text|>")) EXPECT_FALSE(tok.is_control(id)) << id;
}

// ---- more pre-tokenizers and hard text, on the Llama 3.1 vocabulary (ids from llama.cpp) ----

const char* const kHardTexts[] = {
    "Hello, world! 1234 and 56789 or 3.14159 $100 +5 <=> ^~| a|b",
    "I've been 'told he's there, 'RE you sure? 'M not sure I'll make it, 'D you like ",
    "  leading spaces\n\n\ttabs\r\nand  double  spaces   trailing ",
    "Café déjà vu — naïve façade, Ångström, Øresund, Straße, Ελληνικά, русский",
    "我想在apple工作1314151天～ 日本語のテキスト、한국어 텍스트",
    "🚀 (normal) 😶"
    "\xE2\x80\x8D"
    "🌫"
    "\xEF\xB8\x8F"
    " (multiple emojis) ✅ 🦙🦙 👍🏽",
    "HelloWorld HTTPServer iPhone McDonald's ÉCOLE éCOLE aÉb ÀbcDef",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)  # naive\n",
    "a://b//c/ d.//\n\nx /// y",
    "x  "
    "\xC2\xA0"
    " y"
    "\xE3\x80\x80"
    "z \t\t\n \n",
    "Numbers: 1234567 3.14159 1,000,000 2024-10-05 0x1F 007 ١٢٣ ⅷ ²³",
    "<|begin_of_text|><|im_start|>user<s>[INST] hi </s><|eot_id|>",
};
// llama.cpp (llama_oracle tokenize-file --no-special) on the Llama 3.1 vocabulary with tokenizer.ggml.pre =
// "default".
const std::vector<std::vector<int32_t>> kDefaultIds = {
    {9906, 11, 1917, 0,   220, 4513, 19,  323, 220,  19282, 4578, 477, 220, 18,  13, 9335, 2946,
     220,  3,  1041, 220, 10,  20,   220, 27,  2228, 220,   61,   93,  91,  264, 91, 65},
    {40, 6,   588, 1027, 220, 6,    83,  820, 568, 6,    82,  1070, 11,  220, 6,  793, 499,  2771,
     30, 220, 6,   44,   539, 2771, 358, 6,   657, 1304, 433, 11,   220, 6,   35, 499, 1093, 220},
    {220, 6522, 12908, 271, 197, 32093, 201, 198, 438, 220, 2033, 220, 12908, 256, 28848, 220},
    {34,    2642, 978,   46939, 33614, 220, 2345,  95980, 588, 95972,  1037,   11, 80352,  983,   496,
     86684, 11,   90043, 417,   1263,  11,  27745, 24352, 11,  121029, 102434, 11, 110950, 101591},
    {37046,  101067, 19000, 23182, 102301, 9263, 18136,  16,    36827, 21909, 105180,
     102158, 16144,  57933, 62903, 71634,  5486, 112699, 32179, 10997, 45204, 54289},
    {9468,  248,    222, 220,   7,   8416,  8,  27623, 114,  102470, 9468, 234,   104, 31643, 220, 7,
     36773, 100166, 8,   26602, 227, 11410, 99, 247,   9468, 99,     247,  62904, 235, 9468,  237, 121},
    {9906, 10343, 10339, 5592, 12443, 32014, 6,  82,    29124, 8445,
     877,  4046,  8445,  877,  264,   27887, 65, 65381, 9081,  2685},
    {755, 16178, 7,   77, 1680, 198, 262, 471,   308, 422, 308, 220, 27,  220, 17, 775, 16178, 7,     77,
     220, 12,    220, 16, 8,    220, 10,  16178, 7,   77,  220, 12,  220, 17,  8,  256, 2,     50765, 198},
    {64, 1129, 65, 322, 66, 14, 294, 13, 322, 198, 198, 87, 220, 2640, 379},
    {87, 256, 4194, 379, 23249, 89, 99307, 720},
    {28336, 25,  220,   4513, 10961,  22,     220,    18,  13,    9335, 2946, 220,   16,   11,
     931,   11,  931,   220,  2366,   19,     12,     605, 12,    2304, 220,  15,    87,   16,
     37,    220, 11194, 220,  109610, 110546, 117413, 220, 71567, 115,  220,  30556, 44301},
    {27, 91,    7413,  62, 1073,  62,  1342, 91, 1822, 91, 318, 62,  2527, 91,  29, 882, 27,
     82, 31868, 65562, 60, 15960, 220, 524,  82, 1822, 91, 68,  354, 62,   307, 91, 29},
};
// llama.cpp (llama_oracle tokenize-file --no-special) on the Llama 3.1 vocabulary with tokenizer.ggml.pre =
// "gpt-2".
const std::vector<std::vector<int32_t>> kGpt2Ids = {
    {9906, 11,  1917,  0,   220,  717, 1958, 323,   220,  3487, 16474, 477, 220, 18,
     13,   975, 11068, 400, 1041, 489, 20,   72605, 6440, 93,   91,    264, 91,  65},
    {40,  3077, 1027, 364,  83,  820,  568,  596, 1070, 11,  364, 793, 499,  2771, 30,
     364, 44,   539,  2771, 358, 3358, 1304, 433, 11,   364, 35,  499, 1093, 220},
    {220, 6522, 12908, 271, 197, 32093, 201, 198, 438, 220, 2033, 220, 12908, 256, 28848, 220},
    {34,    2642, 978,   46939, 33614, 2001, 95980, 588,   95972, 1037,   11,     80352, 983,    496,
     86684, 11,   90043, 417,   1263,  11,   27745, 24352, 11,    121029, 102434, 11,    110950, 101591},
    {37046,  101067, 19000, 23182, 102301, 1032, 975,    9690,  36827, 21909, 105180,
     102158, 16144,  57933, 62903, 71634,  5486, 112699, 32179, 10997, 45204, 54289},
    {9468,   248, 222,   320, 8416,  8,  27623, 114,  102470, 9468, 234,   104, 31643, 320, 36773,
     100166, 8,   26602, 227, 11410, 99, 247,   9468, 99,     247,  62904, 235, 9468,  237, 121},
    {9906, 10343, 10339, 5592, 12443, 32014, 596, 29124, 8445, 877, 4046, 8445, 877, 264, 27887, 65, 65381,
     9081, 2685},
    {755, 16178, 7,   77, 1680, 198, 262,   471, 308, 422, 308, 366, 220, 17,  775, 16178, 7,
     77,  482,   220, 16, 8,    489, 16178, 7,   77,  482, 220, 17,  8,   220, 674, 50765, 198},
    {64, 1129, 65, 322, 66, 14, 294, 13, 322, 198, 198, 87, 1066, 379},
    {87, 256, 4194, 379, 23249, 89, 99307, 720},
    {28336, 25,  220,   4513,   1774, 3080,   220,    18,   13,  975,  11068, 220, 16,   11,
     931,   11,  931,   220,    508,  1187,   12,     605,  12,  2304, 220,   15,  87,   16,
     37,    220, 11194, 100256, 94,   110546, 117413, 2928, 227, 115,  2188,  110, 44301},
    {27, 91, 7413,  62,    1073, 62,    1342, 91, 1822, 91, 318, 62,  2527, 91,  29, 882,
     27, 82, 31868, 65562, 60,   15960, 694,  82, 1822, 91, 68,  354, 62,   307, 91, 29},
};
// llama.cpp (llama_oracle tokenize-file --no-special) on the Llama 3.1 vocabulary with tokenizer.ggml.pre =
// "tekken".
const std::vector<std::vector<int32_t>> kTekkenIds = {
    {9906, 11, 1917, 0,  220, 16, 17,  18, 19, 323, 220, 20, 21,    22,   23, 24, 477, 220, 18,
     13,   16, 19,   16, 20,  24, 400, 16, 15, 15,  489, 20, 72605, 6440, 93, 91, 264, 91,  65},
    {40,  3077, 1027, 364,  83,  820,  568,  596, 1070, 11,  364, 793, 499,  2771, 30,
     364, 44,   539,  2771, 358, 3358, 1304, 433, 11,   364, 35,  499, 1093, 220},
    {220, 6522, 12908, 271, 3324, 3518, 319, 438, 220, 2033, 220, 12908, 256, 28848, 220},
    {34,    2642, 978,   46939, 33614, 2001, 95980, 588,   95972, 1037,   11,     80352, 983,    496,
     86684, 11,   90043, 417,   1263,  11,   27745, 24352, 11,    121029, 102434, 11,    110950, 101591},
    {37046, 101067, 19000,  23182, 102301, 16,    18,    16,   19,     16,    20,    16,    36827,
     21909, 105180, 102158, 16144, 57933,  62903, 71634, 5486, 112699, 32179, 10997, 45204, 54289},
    {9468,   248, 222,   320, 8416,  8,  27623, 114,  102470, 9468, 234,   104, 31643, 320, 36773,
     100166, 8,   26602, 227, 11410, 99, 247,   9468, 99,     247,  62904, 235, 9468,  237, 121},
    {9906, 10343, 10339, 5592, 602, 7084,  4584, 18735, 596,  29124, 8445,
     877,  4046,  8445,  877,  264, 27887, 65,   65381, 9081, 2685},
    {755, 16178, 1471, 997, 262, 471,   308,  422, 308, 366, 220, 17,  775, 16178, 1471,
     482, 220,   16,   8,   489, 16178, 1471, 482, 220, 17,  8,   220, 674, 50765, 198},
    {64, 1129, 65, 322, 66, 14, 294, 13, 6454, 87, 1066, 379},
    {87, 256, 4194, 379, 23249, 89, 99307, 720},
    {28336, 25, 220, 16,  17,     18,     19,     20,  21,    22,  220, 18,    13,   16,  19,
     16,    20, 24,  220, 16,     11,     15,     15,  15,    11,  15,  15,    15,   220, 17,
     15,    17, 19,  12,  16,     15,     12,     15,  20,    220, 15,  87,    16,   37,  220,
     15,    15, 22,  220, 109610, 110546, 117413, 220, 71567, 115, 220, 30556, 44301},
    {27,    91,    7413, 3659,  4424, 91, 1822, 91, 318, 5011, 91,  29, 882, 45147,
     31868, 65562, 60,   15960, 694,  82, 1822, 91, 68,  354,  851, 91, 29},
};
// llama.cpp (llama_oracle tokenize-file --no-special) on the Llama 3.1 vocabulary with tokenizer.ggml.pre =
// "qwen2".
const std::vector<std::vector<int32_t>> kQwen2Ids = {
    {9906, 11, 1917, 0,  220, 16, 17,  18, 19, 323, 220, 20, 21,    22,   23, 24, 477, 220, 18,
     13,   16, 19,   16, 20,  24, 400, 16, 15, 15,  489, 20, 72605, 6440, 93, 91, 264, 91,  65},
    {40,  3077, 1027, 364,  83,  820,  568,  596, 1070, 11,  364, 793, 499,  2771, 30,
     364, 44,   539,  2771, 358, 3358, 1304, 433, 11,   364, 35,  499, 1093, 220},
    {220, 6522, 12908, 271, 3324, 3518, 319, 438, 220, 2033, 220, 12908, 256, 28848, 220},
    {34,    2642, 978,   46939, 33614, 2001, 95980, 588,   95972, 1037,   11,     80352, 983,    496,
     86684, 11,   90043, 417,   1263,  11,   27745, 24352, 11,    121029, 102434, 11,    110950, 101591},
    {37046, 101067, 19000,  23182, 102301, 16,    18,    16,   19,     16,    20,    16,    36827,
     21909, 105180, 102158, 16144, 57933,  62903, 71634, 5486, 112699, 32179, 10997, 45204, 54289},
    {9468,   248, 222,   320, 8416,  8,  27623, 114,  102470, 9468, 234,   104, 31643, 320, 36773,
     100166, 8,   26602, 227, 11410, 99, 247,   9468, 99,     247,  62904, 235, 9468,  237, 121},
    {9906, 10343, 10339, 5592, 12443, 32014, 596, 29124, 8445, 877, 4046, 8445, 877, 264, 27887, 65, 65381,
     9081, 2685},
    {755, 16178, 1471, 997, 262, 471,   308,  422, 308, 366, 220, 17,  775, 16178, 1471,
     482, 220,   16,   8,   489, 16178, 1471, 482, 220, 17,  8,   220, 674, 50765, 198},
    {64, 1129, 65, 322, 66, 14, 294, 13, 6454, 87, 1066, 379},
    {87, 256, 4194, 379, 23249, 89, 99307, 720},
    {28336, 25, 220, 16,  17,     18,     19,     20,  21,    22,  220, 18,    13,   16,  19,
     16,    20, 24,  220, 16,     11,     15,     15,  15,    11,  15,  15,    15,   220, 17,
     15,    17, 19,  12,  16,     15,     12,     15,  20,    220, 15,  87,    16,   37,  220,
     15,    15, 22,  220, 109610, 110546, 117413, 220, 71567, 115, 220, 30556, 44301},
    {27,    91,    7413, 3659,  4424, 91, 1822, 91, 318, 5011, 91,  29, 882, 45147,
     31868, 65562, 60,   15960, 694,  82, 1822, 91, 68,  354,  851, 91, 29},
};

TEST(ModelzooTokenizers, EveryPretokenizerPresetMatchesLlamaCppOnHardText) {
    const Zoo& z = kZoo[0];
    SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
    const GgufVocab v = vocab_of(z, 128256);
    ASSERT_TRUE(v.bpe);
    const BpeVocab data = read_gguf_bpe_vocab(GgufFile::open(fixture_path(rel(z, z.gguf))), 128256);
    const std::pair<const char*, const std::vector<std::vector<int32_t>>*> cases[] = {
        {"default", &kDefaultIds}, {"gpt-2", &kGpt2Ids}, {"tekken", &kTekkenIds}, {"qwen2", &kQwen2Ids}};
    for (const auto& [pre, expected] : cases) {
        BpeVocab copy = data;
        copy.pre = pre;
        const Tokenizer tok = Tokenizer::from_bpe_vocab(copy);
        ASSERT_EQ(expected->size(), std::size(kHardTexts));
        for (std::size_t i = 0; i < std::size(kHardTexts); ++i)
            EXPECT_EQ(tok.encode(kHardTexts[i]), (*expected)[i]) << pre << ": '" << kHardTexts[i] << "'";
    }
}

TEST(ModelzooTokenizers, InvalidUtf8AsLlamaCpp) {
    const Zoo& z = kZoo[0];
    SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
    const Tokenizer tok = tokenizer_of(vocab_of(z, 128256));
    // llama.cpp replaces each byte that starts no well-formed sequence by U+FFFD (overlong forms
    // and surrogates, which it decodes leniently, are U+FFFD per byte here).
    EXPECT_EQ(tok.encode("a\xFF"
                         "b"),
              (std::vector<int32_t>{64, 5809, 65}));
    EXPECT_EQ(tok.encode("caf\xC3"), (std::vector<int32_t>{69896, 5809}));
    EXPECT_EQ(tok.encode("e\xE2\x82"
                         "A"),
              (std::vector<int32_t>{68, 10178, 32}));
}

TEST(ModelzooTokenizers, QwenUserDefinedTokensAreMatchedInTextAsLlamaCpp) {
    const Zoo& z = kZoo[1];
    SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
    const Tokenizer tok = tokenizer_of(vocab_of(z, 152064));
    // <tool_call>/</tool_call> are user-defined (type 4): llama.cpp matches them with
    // parse_special=false, as HF does with non-special added tokens; <think> is not in Qwen2.5.
    EXPECT_EQ(tok.encode("x<tool_call>y</tool_call> <think>"),
              (std::vector<int32_t>{87, 151657, 88, 151658, 366, 26865, 29}));
    EXPECT_FALSE(tok.is_control(151657));
    EXPECT_EQ(tok.piece(151657), "<tool_call>");
}

// ---- the same vocabularies as tokenizer.json ----

// A fresh folder per fixture in this test process's own temp folder (ctest runs tests in parallel),
// removed at exit.
std::filesystem::path scratch(const std::string& name) {
    static const testing::TempDir root("snapdoc-modelzoo-tokenizers");
    const auto dir = root / name;
    std::filesystem::create_directories(dir);
    return dir;
}

void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

// The Split regexes of the real tokenizer.json files (Llama 3.1: digits 1-3; Qwen2.5/3: single).
std::string hf_regex(const std::string& digits) {
    return "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" + digits +
           "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
}

json added_tokens(const std::vector<std::string>& tokens, const std::vector<int32_t>& types) {
    json added = json::array();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const int32_t t = types.empty() ? 1 : types[i];
        if (t == 1 || t == 6) continue;
        added.push_back({{"id", i}, {"content", tokens[i]}, {"special", t != 4}, {"normalized", false}});
    }
    return added;
}

std::string byte_level_tokenizer_json(const BpeVocab& v, bool llama3) {
    json vocab = json::object();
    for (std::size_t i = 0; i < v.tokens.size(); ++i)
        if (v.types.empty() || v.types[i] == 1) vocab[v.tokens[i]] = i;
    json merges = json::array();
    for (const auto& [a, b] : v.merges) merges.push_back(a + " " + b);
    json root;
    root["model"] = {{"type", "BPE"},           {"vocab", vocab},         {"merges", merges},
                     {"ignore_merges", llama3}, {"byte_fallback", false}, {"dropout", nullptr},
                     {"unk_token", nullptr}};
    root["added_tokens"] = added_tokens(v.tokens, v.types);
    root["normalizer"] = llama3 ? json(nullptr) : json({{"type", "NFC"}});
    root["pre_tokenizer"] = {{"type", "Sequence"},
                             {"pretokenizers",
                              {{{"type", "Split"},
                                {"pattern", {{"Regex", hf_regex(llama3 ? "\\p{N}{1,3}" : "\\p{N}")}}},
                                {"behavior", "Isolated"},
                                {"invert", false}},
                               {{"type", "ByteLevel"},
                                {"add_prefix_space", false},
                                {"trim_offsets", false},
                                {"use_regex", false}}}}};
    const std::string bos = v.bos_id >= 0 ? v.tokens[static_cast<std::size_t>(v.bos_id)] : "";
    if (llama3) {
        json bos_item = {{"SpecialToken", {{"id", bos}, {"type_id", 0}}}};
        json text_item = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
        json tmpl = {{"type", "TemplateProcessing"}, {"single", json::array({bos_item, text_item})}};
        root["post_processor"] = {{"type", "Sequence"},
                                  {"processors", json::array({json{{"type", "ByteLevel"}}, tmpl})}};
    } else {
        root["post_processor"] = {{"type", "ByteLevel"}};
    }
    root["decoder"] = {{"type", "ByteLevel"}};
    return root.dump();
}

TEST(ModelzooTokenizers, ByteLevelTokenizerJsonGivesTheSameIds) {
    for (const Zoo& z : kZoo) {
        SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
        const json expected = tokens_json(z);
        if (expected["vocab_type"].get<int>() != 2) continue;
        const GgufVocab v = vocab_of(z, expected["n_vocab"].get<int>());
        ASSERT_TRUE(v.bpe) << z.dir;
        const bool llama3 = v.bpe->pre() == "llama-bpe";
        const auto dir = scratch(z.dir);
        const auto path = dir / "tokenizer.json";
        write_file(path,
                   byte_level_tokenizer_json(
                       read_gguf_bpe_vocab(GgufFile::open(fixture_path(rel(z, z.gguf))), 200000), llama3));
        // Qwen's tokenizer_config.json names its eos; Llama 3's post-processor names its BOS.
        const std::string config = llama3
                                       ? json({{"eos_token", "<|eot_id|>"}}).dump()
                                       : json({{"bos_token", nullptr}, {"eos_token", "<|im_end|>"}}).dump();
        write_file(dir / "tokenizer_config.json", config);
        Tokenizer tok = Tokenizer::from_file(path.string());
        EXPECT_EQ(tok.kind(), TokenizerKind::ByteLevelBpe);
        for (const json& t : expected["texts"]) {
            const std::string text = t["text"].get<std::string>();
            EXPECT_EQ(tok.encode(text), t["ids_no_special"].get<std::vector<int32_t>>())
                << z.dir << ": '" << text << "'";
        }
        EXPECT_EQ(tok.add_bos(), llama3) << z.dir;
        EXPECT_EQ(tok.eos_id(), expected["eos"].get<int>()) << z.dir;  // named by tokenizer_config.json
    }
}

// HF's SentencePiece converter: for every piece, each split into two pieces of the vocabulary is
// a merge; merges are ordered by the piece's score, best first (stable), splits of one piece by
// the ids of their halves.
std::string sentencepiece_tokenizer_json(const VocabSpec& spec) {
    std::unordered_map<std::string, int32_t> id;
    for (std::size_t i = 0; i < spec.pieces.size(); ++i) id.emplace(spec.pieces[i], static_cast<int32_t>(i));
    struct M {
        std::string a, b;
        float score;
    };
    std::vector<M> merges;
    json vocab = json::object();
    for (std::size_t i = 0; i < spec.pieces.size(); ++i) {
        const std::string& p = spec.pieces[i];
        vocab[p] = i;
        const int32_t t = spec.types.empty() ? 1 : spec.types[i];
        if (t != 1) continue;
        std::vector<std::pair<int32_t, int32_t>> local;
        for (std::size_t cut = 1; cut < p.size(); ++cut) {
            if ((static_cast<unsigned char>(p[cut]) & 0xC0) == 0x80) continue;
            const auto l = id.find(p.substr(0, cut)), r = id.find(p.substr(cut));
            if (l != id.end() && r != id.end()) local.emplace_back(l->second, r->second);
        }
        std::sort(local.begin(), local.end());
        for (const auto& [l, r] : local) merges.push_back({spec.pieces[l], spec.pieces[r], spec.scores[i]});
    }
    std::stable_sort(merges.begin(), merges.end(), [](const M& x, const M& y) { return x.score > y.score; });
    json mj = json::array();
    for (const M& m : merges) mj.push_back(json::array({m.a, m.b}));
    json root;
    root["model"] = {{"type", "BPE"},
                     {"vocab", vocab},
                     {"merges", mj},
                     {"byte_fallback", true},
                     {"unk_token", spec.pieces[static_cast<std::size_t>(spec.unk_id)]},
                     {"fuse_unk", true}};
    root["added_tokens"] = added_tokens(spec.pieces, spec.types);
    root["normalizer"] = {
        {"type", "Sequence"},
        {"normalizers",
         {{{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
          {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}}}}};
    root["pre_tokenizer"] = nullptr;
    return root.dump();
}

TEST(ModelzooTokenizers, SentencePieceStyleTokenizerJsonGivesTheSameIds) {
    const Zoo& z = kZoo[4];
    SNAPDOC_REQUIRE_FIXTURE(rel(z, z.gguf));
    const json expected = tokens_json(z);
    const GgufVocab v = vocab_of(z, expected["n_vocab"].get<int>());
    ASSERT_FALSE(v.proto.empty());
    const auto dir = scratch("spm-llama-tiny");
    const auto path = dir / "tokenizer.json";
    write_file(path, sentencepiece_tokenizer_json(vocab_from_sentencepiece(v.proto)));
    const Tokenizer tok = Tokenizer::from_file(path.string());
    EXPECT_EQ(tok.kind(), TokenizerKind::SentencePiece);
    EXPECT_TRUE(tok.adds_dummy_prefix());
    for (const json& t : expected["texts"]) {
        const std::string text = t["text"].get<std::string>();
        EXPECT_EQ(tok.encode(text), t["ids_no_special"].get<std::vector<int32_t>>()) << "'" << text << "'";
    }
}

}  // namespace
}  // namespace snapdoc
