// The model catalogue (resources/models/catalogue.json, compiled in): every entry's shape against
// its published parameter count, file names against their quantization, and the schema checks
// (each bad field ends in a message naming the entry and the field).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/hub/catalogue.h"
#include "app/hub/catalogue_data.h"
#include "engine/common/error.h"
#include "engine/model/architecture.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::hub {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// Weights a checkpoint of this shape holds, counted tensor by tensor the way the GGUF converter
// writes them (independent of the catalogue's own number).
int64_t count_parameters(const ModelConfig& c) {
    const int64_t D = c.dim, q = c.q_dim(), kv = c.kv_dim();
    int64_t layer = 2 * D + D * q + 2 * D * kv + q * D + 3 * D * c.ffn_dim;
    if (c.architecture == "qwen2") layer += q + 2 * kv;         // Q/K/V biases
    if (c.architecture == "qwen3") layer += 2 * c.head_dim;     // per-head q/k norms
    return int64_t{c.vocab_size} * D * (c.tied_embeddings ? 1 : 2) + c.n_layers * layer + D;
}

double published(const std::string& label) {  // "8.03B"
    EXPECT_FALSE(label.empty());
    EXPECT_EQ(label.back(), 'B');
    return std::stod(label.substr(0, label.size() - 1)) * 1e9;
}

TEST(HubCatalogue, BuiltInEntriesAreConsistent) {
    const Catalogue& c = builtin_catalogue();
    ASSERT_GE(c.models.size(), 12u);
    for (const CatalogueEntry& e : c.models) {
        SCOPED_TRACE(e.id);
        EXPECT_EQ(e.parameters, count_parameters(e.shape));
        // The shape reproduces the model card's figure (given to 2-3 significant digits).
        EXPECT_NEAR(static_cast<double>(e.parameters) / published(e.parameters_published), 1.0, 0.015);
        EXPECT_NE(find_gguf_architecture(e.shape.architecture), nullptr);
        EXPECT_EQ(e.shape.n_heads % e.shape.n_kv_heads, 0);
        EXPECT_GE(e.shape.context_length, 32768);
        EXPECT_FALSE(e.files.empty());
        for (const CatalogueFile& f : e.files) {
            for (const std::string& name : f.files) {
                // Hub file names carry their quantization (bartowski: -Q4_K_M.gguf, Qwen: -q4_k_m.gguf).
                EXPECT_NE(lower(name).find(lower(f.quant) + ".gguf"), std::string::npos) << name;
            }
            EXPECT_GT(weight_bytes_of(e, f), e.parameters / 2);  // at least 4 bits per weight
        }
        EXPECT_EQ(c.find(e.id), &e);
    }
    EXPECT_NE(c.find("LLAMA-3.1-8B-INSTRUCT"), nullptr);
    EXPECT_EQ(c.find("no-such-model"), nullptr);
}

TEST(HubCatalogue, KnownShapesOfTwoModels) {
    // Two entries spelled out against their config.json, so a shifted column cannot pass.
    const CatalogueEntry* llama = builtin_catalogue().find("llama-3.1-8b-instruct");
    ASSERT_NE(llama, nullptr);
    EXPECT_EQ(llama->shape.n_layers, 32);
    EXPECT_EQ(llama->shape.dim, 4096);
    EXPECT_EQ(llama->shape.n_kv_heads, 8);
    EXPECT_EQ(llama->shape.ffn_dim, 14336);
    EXPECT_EQ(llama->shape.vocab_size, 128256);
    EXPECT_EQ(llama->shape.context_length, 131072);
    const CatalogueEntry* qwen = builtin_catalogue().find("qwen2.5-0.5b-instruct");
    ASSERT_NE(qwen, nullptr);
    EXPECT_EQ(qwen->parameters, 494032768);  // Qwen's model card: 0.49B, 494,032,768 with tied embeddings
    ASSERT_NE(qwen->find_quant("q8_0"), nullptr);
    EXPECT_EQ(qwen->find_quant("q8_0")->files.front(), "qwen2.5-0.5b-instruct-q8_0.gguf");
}

json valid_doc() { return json::parse(kCatalogueJson); }

void expect_error(json doc, const std::string& message) {
    EXPECT_FORMAT_ERROR(parse_catalogue(doc.dump(), "cat.json"), message);
}

TEST(HubCatalogue, SchemaErrorsNameTheEntryAndField) {
    json d = valid_doc();
    d["models"][1].erase("repo");
    expect_error(d, "cat.json: models[1] (qwen2.5-1.5b-instruct): repo is missing");

    d = valid_doc();
    d["models"][0]["shape"]["heads"] = "14";
    expect_error(d, "models[0] (qwen2.5-0.5b-instruct): shape.heads must be a positive integer");

    d = valid_doc();
    d["models"][0]["shape"]["kv_heads"] = 3;
    expect_error(d, "shape.kv_heads 3 must divide shape.heads 14");

    d = valid_doc();
    d["models"][2]["architecture"] = "gemma2";
    expect_error(d, "architecture 'gemma2' is not one snapdoc loads");

    d = valid_doc();
    d["models"][0]["template"] = "nonsense";
    expect_error(d, "models[0] (qwen2.5-0.5b-instruct): template");

    d = valid_doc();
    d["models"][0]["files"][1]["quant"] = "Q4_K_M";
    expect_error(d, "files[1].quant 'Q4_K_M' is listed twice");

    d = valid_doc();
    d["models"][0]["files"][0]["quant"] = "Q9_X";
    expect_error(d, "files[0].quant 'Q9_X' is not a known quantization");

    d = valid_doc();
    d["models"][0]["files"][0]["files"] = json::array({"../evil.gguf"});
    expect_error(d, "'../evil.gguf' must be a relative .gguf path");

    d = valid_doc();
    d["models"][0]["repo"] = "no-owner";
    expect_error(d, "repo 'no-owner' must be owner/name");

    d = valid_doc();
    d["models"][3]["id"] = d["models"][0]["id"];
    expect_error(d, "model id 'qwen2.5-0.5b-instruct' is listed twice");

    d = valid_doc();
    d["models"][0]["gated"] = "no";
    expect_error(d, "gated must be true or false");

    d = valid_doc();
    d["format"] = 2;
    expect_error(d, "format must be 1");

    d = valid_doc();
    d["models"] = json::object();
    expect_error(d, "models must be an array");

    EXPECT_FORMAT_ERROR(parse_catalogue("{\"format\": 1, \"models\": [", "cat.json"), "cat.json: not valid JSON");
    EXPECT_FORMAT_ERROR(parse_catalogue(std::string(1000, '['), "cat.json"), "nested deeper than");
}

TEST(HubCatalogue, LoadsAFileAndRefusesOthers) {
    snapdoc::testing::TempDir dir;
    {
        std::ofstream(dir / "c.json") << kCatalogueJson;
    }
    EXPECT_EQ(load_catalogue(dir / "c.json").models.size(), builtin_catalogue().models.size());
    EXPECT_FORMAT_ERROR(load_catalogue(dir / "missing.json"), "missing.json");
    EXPECT_FORMAT_ERROR(load_catalogue(dir.path()), "directory");
}

TEST(HubCatalogue, QuantEstimates) {
    EXPECT_EQ(estimated_quant_bytes("Q8_0", 32000), 34000);  // 34 bytes per 32-weight block
    EXPECT_EQ(estimated_quant_bytes("f16", 1000), 2000);
    EXPECT_FALSE(estimated_quant_bytes("Q7_K", 1000));
    CatalogueEntry e;
    e.parameters = 1000;
    CatalogueFile listed{"Q8_0", {"a.gguf"}, 1234};
    EXPECT_EQ(weight_bytes_of(e, listed), 1234);  // a listed size wins over the estimate
}

}  // namespace
}  // namespace snapdoc::hub
