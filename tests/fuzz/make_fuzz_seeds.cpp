// Writes seed corpora for the fuzz targets into OUT/{gguf,safetensors,hf_config}: tiny valid models
// in every dtype, a GGUF with every metadata type, and config.json variants. Small inputs keep the
// fuzzers fast. Usage: snapdoc_fuzz_seeds OUT
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/model/gguf_writer.h"
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

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];
    for (const char* d : {"gguf", "safetensors", "hf_config"}) fs::create_directories(out / d);

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
    return 0;
}
