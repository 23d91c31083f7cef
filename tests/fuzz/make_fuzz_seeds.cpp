// Writes seed corpora for the fuzz targets into OUT/{gguf,safetensors,hf_config,gguf_quant,
// tokenizer_json,tokenizer_text,chat_template,kv_cache}: tiny valid models in every dtype (gguf_quant: one per
// block type, every matrix in it), a GGUF with every metadata type, config.json variants,
// tokenizer.json files, texts in the tokenizer targets' input layouts and K/V cache files. Small inputs keep the
// fuzzers fast. Usage: snapdoc_fuzz_seeds OUT
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/kv/kv_store_file.h"
#include "engine/model/gguf_model.h"
#include "engine/model/gguf_types.h"
#include "engine/model/gguf_writer.h"
#include "engine/tokenizer/bpe_byte_map.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/kv_file_sample.h"
#include "tests/support/safetensors_writer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace fs = std::filesystem;
using namespace snapdoc;
using namespace snapdoc::testing;

namespace {

TinyModelSpec small(int vocab, bool tied) {
    TinyModelSpec s;
    s.n_layers = 1;
    s.dim = 32;
    s.n_heads = 2;
    s.n_kv_heads = 1;
    s.ffn_dim = 32;
    s.vocab_size = vocab;
    s.tied = tied;
    return s;
}

void write_metadata_gguf(const fs::path& file) {
    GgufWriter w;
    w.set_u8("a.u8", 1);
    w.set_i8("a.i8", -1);
    w.set_u16("a.u16", 2);
    w.set_i16("a.i16", -2);
    w.set_u32("a.u32", 3);
    w.set_i32("a.i32", -3);
    w.set_f32("a.f32", 0.5f);
    w.set_bool("a.bool", true);
    w.set_string("a.str", "text");
    w.set_u64("a.u64", 4);
    w.set_i64("a.i64", -4);
    w.set_f64("a.f64", 0.25);
    w.set_string_array("a.strs", {"x", "yy"});
    w.set_f32_array("a.floats", {1.0f, 2.0f});
    w.set_i32_array("a.ints", {1, 2});
    w.set("a.nested", GgufMetaValue::array(GgufType::Array, {GgufMetaValue::array(GgufType::Uint8, {GgufMetaValue::u8(9)})}));
    w.add_tensor("t.f32", {2, 32}, DType::F32, std::vector<float>(64, 1.0f));
    w.add_tensor("t.q8", {1, 32}, DType::Q8_0, std::vector<float>(32, 2.0f));
    w.write(file);
}

// A tiny model whose every matrix is in block type `t` (norms stay F32): written in F32, then
// each 2-D tensor re-encoded row by row. K-quants need 256-wide rows, so those models are wider.
void write_quant_gguf(const fs::path& file, DType t, const fs::path& scratch) {
    TinyModelSpec s = small(8, t == DType::Q4_0 || t == DType::Q6_K);
    if (dtype_block_size(t) > 32) {
        s.dim = 256;
        s.ffn_dim = 256;
    }
    const fs::path f32 = scratch / "f32.gguf";
    write_tiny_gguf(f32, make_tiny_weights(s), DType::F32);
    GgufEdit edit;
    edit.tensor = [t](std::string&, std::vector<int64_t>& shape, uint32_t& type, std::vector<uint8_t>& bytes) {
        if (type != ggml_type::F32 || shape.size() != 2 || shape.back() % dtype_block_size(t) != 0) return true;
        const int64_t rows = shape[0], cols = shape[1];
        const std::size_t row_bytes = dtype_row_bytes(t, cols);
        std::vector<uint8_t> out(static_cast<std::size_t>(rows) * row_bytes);
        const auto* src = reinterpret_cast<const float*>(bytes.data());
        for (int64_t r = 0; r < rows; ++r) quantize_row(t, src + r * cols, out.data() + r * row_bytes, cols);
        bytes = std::move(out);
        type = ggml_from_dtype(t);
        return true;
    };
    rewrite_gguf(f32, file, edit);
    try {
        (void)load_gguf_model(file);
    } catch (const Error& e) {
        std::fprintf(stderr, "warning: seed %s does not load: %s\n", file.c_str(), e.what());
    }
}

// tokenizer.json seeds: a byte-level BPE one (Llama 3 / Qwen shape) and a SentencePiece-style one.
void write_tokenizer_json_seeds(const fs::path& dir) {
    using nlohmann::json;
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_level::encode(std::string(1, static_cast<char>(b)))] = b;
    vocab["ab"] = 256;
    vocab[byte_level::encode(" a")] = 257;
    json bpe;
    bpe["model"] = {{"type", "BPE"},
                    {"vocab", vocab},
                    {"merges", json::array({json::array({"a", "b"}), byte_level::encode(" ") + " a"})}};
    bpe["added_tokens"] = json::array({{{"id", 258}, {"content", "<|endoftext|>"}, {"special", true}},
                                       {{"id", 259}, {"content", "<tool>"}, {"special", false}}});
    bpe["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         json::array({{{"type", "Split"},
                       {"pattern", {{"Regex", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"}}},
                       {"behavior", "Isolated"},
                       {"invert", false}},
                      {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}};
    bpe["post_processor"] = {{"type", "TemplateProcessing"},
                             {"single", json::array({json{{"SpecialToken", {{"id", "<|endoftext|>"}}}},
                                                     json{{"Sequence", {{"id", "A"}}}}})}};
    std::ofstream(dir / "bpe.json") << bpe.dump(1);
    bpe["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    std::ofstream(dir / "bpe-gpt2.json", std::ios::binary)
        << bpe.dump() << '\0' << R"({"add_bos_token": false, "eos_token": "<|endoftext|>"})";

    json sp_vocab = json::object();
    sp_vocab["<unk>"] = 0;
    sp_vocab["<s>"] = 1;
    sp_vocab["</s>"] = 2;
    static const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) sp_vocab[std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">"] = 3 + b;
    sp_vocab["\u2581"] = 259;
    sp_vocab["a"] = 260;
    sp_vocab["\u2581a"] = 261;
    json sp;
    sp["model"] = {{"type", "BPE"}, {"vocab", sp_vocab}, {"merges", json::array({"\u2581 a"})},
                   {"byte_fallback", true}, {"unk_token", "<unk>"}, {"fuse_unk", true}};
    sp["added_tokens"] = json::array({{{"id", 0}, {"content", "<unk>"}, {"special", true}},
                                      {{"id", 1}, {"content", "<s>"}, {"special", true}},
                                      {{"id", 2}, {"content", "</s>"}, {"special", true}}});
    sp["normalizer"] = {{"type", "Sequence"},
                        {"normalizers", json::array({{{"type", "Prepend"}, {"prepend", "\u2581"}},
                                                     {{"type", "Replace"}, {"pattern", {{"String", " "}}},
                                                      {"content", "\u2581"}}})}};
    sp["pre_tokenizer"] = nullptr;
    std::ofstream(dir / "spm.json") << sp.dump(1);
    sp["normalizer"] = nullptr;
    sp["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"}, {"split", false}};
    std::ofstream(dir / "spm-metaspace.json") << sp.dump();
}

// Texts in fuzz_tokenizer_bpe's layout (mode byte, then text) and fuzz_chat_template's (vocabulary
// byte, two 16-bit lengths, then system prompt, document, question).
void write_text_seeds(const fs::path& tok_dir, const fs::path& chat_dir) {
    const std::string texts[] = {"the thing\n\nQuestion: Queuing?", "caf\xC3\xA9 \xF0\x9F\x98\x80  x<tool>y",
                                 "<|eot_id|>[INST] </s> <|im_start|>", "it's 12345 \t\r\n end"};
    int n = 0;
    for (const std::string& t : texts)
        for (char mode : {'\0', '\1', '\2', '\3', '\7'})
            std::ofstream(tok_dir / ("t" + std::to_string(n++)), std::ios::binary) << mode << t;
    n = 0;
    for (char vocab : {'\0', '\1'}) {
        const std::string sys = "Be brief.", doc = "The document </s> [INST] text.", q = "What is it?";
        std::ofstream(chat_dir / ("c" + std::to_string(n++)), std::ios::binary)
            << vocab << static_cast<char>(sys.size()) << '\0' << static_cast<char>(doc.size()) << '\0' << sys << doc
            << q;
    }
}

}  // namespace

// K/V cache files (fuzz_kv_cache_file): small valid ones, each behind each of the target's mode bytes.
static void write_kv_cache_seeds(const fs::path& dir, const fs::path& spill) {
    int n = 0;
    for (const KvFileShape shape : {KvFileShape{1, 1, 8, 16, 5, 2}, KvFileShape{2, 2, 16, 32, 33, 8}}) {
        const KvFileSample sample(spill, shape);
        const fs::path file = spill / "seed.snapkv";
        write_kv_store_file(file, sample.key, sample.contents());
        std::ifstream in(file, std::ios::binary);
        const std::string image{std::istreambuf_iterator<char>(in), {}};
        for (char mode : {'\0', '\1', '\3'})
            std::ofstream(dir / ("cache" + std::to_string(n++) + ".bin"), std::ios::binary) << mode << image;
    }
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];
    for (const char* d :
         {"gguf", "safetensors", "hf_config", "gguf_quant", "tokenizer_json", "tokenizer_text", "chat_template",
          "kv_cache"})
        fs::create_directories(out / d);

    int n = 0;
    for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
        for (bool tied : {false, true}) {
            const TinyWeights w = make_tiny_weights(small(8, tied));
            write_tiny_gguf(out / "gguf" / ("tiny" + std::to_string(n++) + ".gguf"), w, dt);
        }
    }
    // One with a byte-fallback vocabulary (larger; exercises the tokenizer path more).
    write_tiny_gguf(out / "gguf" / "vocab.gguf", make_tiny_weights(small(260, true)), DType::Q8_0);
    write_metadata_gguf(out / "gguf" / "metadata.gguf");

    TempDir tmp;
    write_kv_cache_seeds(out / "kv_cache", tmp.path());
    n = 0;
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
        const fs::path dir = tmp / ("hf" + std::to_string(n));
        write_tiny_hf(dir, make_tiny_weights(small(8, n == 1)), dt);
        fs::copy_file(dir / "model.safetensors", out / "safetensors" / ("tiny" + std::to_string(n) + ".safetensors"),
                      fs::copy_options::overwrite_existing);
        fs::copy_file(dir / "config.json", out / "hf_config" / ("config" + std::to_string(n) + ".json"),
                      fs::copy_options::overwrite_existing);
        ++n;
    }
    write_safetensors(out / "safetensors" / "meta.safetensors",
                      {StTensor{"s", DType::F16, {}, {1.0f}}, StTensor{"v", DType::BF16, {3}, {1, 2, 3}}}, {{"format", "pt"}});

    nlohmann::json mistral = nlohmann::json::parse(std::ifstream(out / "hf_config" / "config0.json"));
    mistral["architectures"] = {"MistralForCausalLM"};
    mistral["model_type"] = "mistral";
    mistral["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
    mistral["head_dim"] = 16;
    mistral["eos_token_id"] = {2, 3};
    mistral["bos_token_id"] = nullptr;
    mistral["sliding_window"] = 4096;
    std::ofstream(out / "hf_config" / "mistral.json") << mistral.dump();

    for (DType dt : kAllDTypes)
        if (dtype_is_quantized(dt))
            write_quant_gguf(out / "gguf_quant" / ("q-" + std::string(dtype_name(dt)) + ".gguf"), dt, tmp.path());
    write_tokenizer_json_seeds(out / "tokenizer_json");
    write_text_seeds(out / "tokenizer_text", out / "chat_template");
    return 0;
}
