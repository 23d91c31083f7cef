// The tokenizers of the modelzoo fixtures (real Llama 3.1, Qwen2.5, Qwen3, Phi-3.5 and Llama 2
// vocabularies in GGUF files) against llama.cpp's ids for 14 hard texts (tokens.json: `ids` with
// add_special=true and parse_special=false, `ids_no_special` without BOS/EOS), and the same
// vocabularies written as a Hugging Face tokenizer.json (byte-level BPE, and SentencePiece-style
// BPE with merges made from the scores as HF's converter does) through the HF path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/model.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

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

std::string rel(const Zoo& z, const std::string& file) { return std::string("modelzoo/") + z.dir + "/" + file; }

json tokens_json(const Zoo& z) { return json::parse(read_text_file(fixture_path(rel(z, "tokens.json")))); }

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

// ---- the same vocabularies as tokenizer.json ----

// A fresh folder per fixture under the temp directory.
std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "snapdoc-modelzoo-tokenizers" / name;
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
    root["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}, {"ignore_merges", llama3},
                     {"byte_fallback", false}, {"dropout", nullptr}, {"unk_token", nullptr}};
    root["added_tokens"] = added_tokens(v.tokens, v.types);
    root["normalizer"] = llama3 ? json(nullptr) : json({{"type", "NFC"}});
    root["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", hf_regex(llama3 ? "\\p{N}{1,3}" : "\\p{N}")}}}, {"behavior", "Isolated"}, {"invert", false}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}}}};
    const std::string bos = v.bos_id >= 0 ? v.tokens[static_cast<std::size_t>(v.bos_id)] : "";
    if (llama3) {
        json bos_item = {{"SpecialToken", {{"id", bos}, {"type_id", 0}}}};
        json text_item = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
        json tmpl = {{"type", "TemplateProcessing"}, {"single", json::array({bos_item, text_item})}};
        root["post_processor"] = {{"type", "Sequence"}, {"processors", json::array({json{{"type", "ByteLevel"}}, tmpl})}};
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
        const bool llama3 = v.bpe->pre == "llama-bpe";
        const auto dir = scratch(z.dir);
        const auto path = dir / "tokenizer.json";
        write_file(path, byte_level_tokenizer_json(*v.bpe, llama3));
        // Qwen's tokenizer_config.json names its eos; Llama 3's post-processor names its BOS.
        const std::string config =
            llama3 ? json({{"eos_token", "<|eot_id|>"}}).dump()
                   : json({{"bos_token", nullptr}, {"eos_token", "<|im_end|>"}}).dump();
        write_file(dir / "tokenizer_config.json", config);
        Tokenizer tok = Tokenizer::from_file(path.string());
        EXPECT_EQ(tok.kind(), TokenizerKind::ByteLevelBpe);
        for (const json& t : expected["texts"]) {
            const std::string text = t["text"].get<std::string>();
            EXPECT_EQ(tok.encode(text), t["ids_no_special"].get<std::vector<int32_t>>()) << z.dir << ": '" << text << "'";
        }
        EXPECT_EQ(tok.add_bos(), llama3) << z.dir;
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
    root["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", mj}, {"byte_fallback", true},
                     {"unk_token", spec.pieces[static_cast<std::size_t>(spec.unk_id)]}, {"fuse_unk", true}};
    root["added_tokens"] = added_tokens(spec.pieces, spec.types);
    root["normalizer"] = {{"type", "Sequence"},
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
