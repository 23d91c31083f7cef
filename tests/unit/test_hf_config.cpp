// config.json parsing: defaults, optional keys, token-id forms, rope scaling, and a FormatError
// naming the key for everything missing, mistyped, unsupported or contradictory.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/model/hf_config.h"
#include "tests/support/expect_format_error.h"

namespace snapdoc {
namespace {

using nlohmann::json;

json base() {
    return {{"architectures", {"LlamaForCausalLM"}},
            {"model_type", "llama"},
            {"hidden_size", 64},
            {"intermediate_size", 172},
            {"num_hidden_layers", 5},
            {"num_attention_heads", 8},
            {"num_key_value_heads", 4},
            {"rms_norm_eps", 1e-5},
            {"max_position_embeddings", 512},
            {"vocab_size", 512},
            {"torch_dtype", "float32"}};
}

HfConfig parse(const json& j) { return parse_hf_config(j.dump(), "config.json"); }

TEST(HfConfig, ParsesALlamaConfig) {
    const HfConfig h = parse(base());
    const ModelConfig& c = h.config;
    EXPECT_EQ(c.architecture, "llama");
    EXPECT_EQ(c.n_layers, 5);
    EXPECT_EQ(c.dim, 64);
    EXPECT_EQ(c.n_heads, 8);
    EXPECT_EQ(c.n_kv_heads, 4);
    EXPECT_EQ(c.head_dim, 8);
    EXPECT_EQ(c.ffn_dim, 172);
    EXPECT_EQ(c.vocab_size, 512);
    EXPECT_EQ(c.context_length, 512);
    EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
    EXPECT_FLOAT_EQ(c.rope_theta, 10000.0f);  // default
    EXPECT_EQ(c.rope_scaling.kind, RopeScalingKind::None);
    EXPECT_EQ(c.rope_style, RopeStyle::RotateHalf);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(c.bos_id, 1);
    EXPECT_EQ(c.eos_id, 2);
    EXPECT_EQ(c.sliding_window, 0);
    EXPECT_EQ(h.torch_dtype, "float32");
    EXPECT_EQ(rope_style_name(c.rope_style), "rotate-half");
}

TEST(HfConfig, OptionalKeysAndVariants) {
    json j = base();
    j["architectures"] = {"MistralForCausalLM"};
    j["model_type"] = "mistral";
    j.erase("num_key_value_heads");
    j["head_dim"] = 16;
    j["rope_theta"] = 1000000.0;
    j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 4.0}};
    j["tie_word_embeddings"] = true;
    j["bos_token_id"] = nullptr;
    j["eos_token_id"] = {7, 9};
    j["sliding_window"] = 256;
    j["hidden_size"] = 64.0;  // integral floats are accepted
    j.erase("torch_dtype");
    j["dtype"] = "bfloat16";
    const HfConfig h = parse(j);
    const ModelConfig& c = h.config;
    EXPECT_EQ(c.architecture, "mistral");
    EXPECT_EQ(c.n_kv_heads, 8);  // defaults to the query heads
    EXPECT_EQ(c.head_dim, 16);
    EXPECT_EQ(c.q_dim(), 128);
    EXPECT_FLOAT_EQ(c.rope_theta, 1e6f);
    EXPECT_EQ(c.rope_scaling.kind, RopeScalingKind::Linear);
    EXPECT_FLOAT_EQ(c.rope_scaling.factor, 4.0f);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.bos_id, -1);
    EXPECT_EQ(c.eos_id, 7);
    EXPECT_EQ(c.sliding_window, 256);
    EXPECT_EQ(h.torch_dtype, "bfloat16");

    j["rope_scaling"] = nullptr;
    EXPECT_EQ(parse(j).config.rope_scaling.kind, RopeScalingKind::None);
    j["rope_scaling"] = {{"type", "default"}};
    EXPECT_EQ(parse(j).config.rope_scaling.kind, RopeScalingKind::None);
    j["sliding_window"] = nullptr;
    EXPECT_EQ(parse(j).config.sliding_window, 0);
}

TEST(HfConfig, ErrorsNameTheKey) {
    struct Case {
        const char* key;
        json value;  // nullptr-with-erase handled below
        bool erase;
        const char* message;
    };
    const Case cases[] = {
        {"hidden_size", nullptr, true, "missing required key 'hidden_size'"},
        {"intermediate_size", nullptr, true, "missing required key 'intermediate_size'"},
        {"num_hidden_layers", nullptr, true, "missing required key 'num_hidden_layers'"},
        {"num_attention_heads", nullptr, true, "missing required key 'num_attention_heads'"},
        {"vocab_size", nullptr, true, "missing required key 'vocab_size'"},
        {"max_position_embeddings", nullptr, true, "missing required key 'max_position_embeddings'"},
        {"hidden_size", "64", false, "key 'hidden_size' must be an integer, not string"},
        {"hidden_size", 64.5, false, "key 'hidden_size' must be an integer"},
        {"hidden_size", 1e30, false, "key 'hidden_size' must be an integer"},
        {"num_hidden_layers", 5000000000ll, false, "key 'num_hidden_layers' is out of range"},
        {"vocab_size", 0, false, "key 'vocab_size' must be positive"},
        {"num_attention_heads", -8, false, "key 'num_attention_heads' must be positive"},
        {"num_key_value_heads", 3, false, "num_key_value_heads (3) does not divide num_attention_heads (8)"},
        {"hidden_size", 60, false, "hidden_size (60) is not divisible by num_attention_heads (8)"},
        {"head_dim", 7, false, "must be positive and even"},
        {"rms_norm_eps", "tiny", false, "key 'rms_norm_eps' must be a number"},
        {"rms_norm_eps", -1.0, false, "norm_eps"},
        {"rope_theta", 0, false, "rope_theta"},
        {"tie_word_embeddings", 1, false, "key 'tie_word_embeddings' must be true or false"},
        {"architectures", {"GemmaForCausalLM"}, false, "architecture 'GemmaForCausalLM' is not supported"},
        {"architectures", 5, false, "key 'architectures' must be a list of strings"},
        {"model_type", "gemma", false, "model_type 'gemma' is not supported"},
        {"rope_scaling", {{"type", "dynamic"}, {"factor", 4}}, false, "rope_scaling type 'dynamic' is not supported"},
        {"rope_scaling", {{"type", "linear"}}, false, "rope_scaling of type 'linear' has no 'factor'"},
        {"rope_scaling", {{"factor", 2}}, false, "'rope_scaling' has no 'type'"},
        {"rope_scaling", "linear", false, "key 'rope_scaling' must be an object or null"},
        {"rope_scaling", {{"type", "linear"}, {"factor", -2}}, false, "rope scaling factor is -2"},
        {"bos_token_id", "1", false, "key 'bos_token_id' must be an integer"},
        {"eos_token_id", 600, false, "eos_id (600) is outside the vocabulary of 512"},
        {"hidden_act", "gelu", false, "hidden_act 'gelu' is not supported"},
        {"attention_bias", true, false, "attention_bias true is not supported"},
        {"torch_dtype", 16, false, "key 'torch_dtype' must be a string"},
    };
    for (const Case& c : cases) {
        json j = base();
        if (c.erase) {
            j.erase(c.key);
        } else {
            j[c.key] = c.value;
        }
        SCOPED_TRACE(std::string(c.key) + " = " + j.dump());
        EXPECT_FORMAT_ERROR(parse(j), c.message);
    }
    json both = base();
    both.erase("architectures");
    both.erase("model_type");
    EXPECT_FORMAT_ERROR(parse(both), "missing key 'architectures'");
    EXPECT_FORMAT_ERROR(parse_hf_config("{\"hidden_size\": ", "x/config.json"), "x/config.json: not valid JSON");
    EXPECT_FORMAT_ERROR(parse_hf_config("[1]", "config.json"), "not a JSON object");
    EXPECT_FORMAT_ERROR(parse_hf_config("", "config.json"), "not valid JSON");
    EXPECT_FORMAT_ERROR(load_hf_config("/nonexistent/config.json"), "No such file or directory");
}

TEST(ModelConfig, ValidateNamesTheField) {
    ModelConfig c;
    c.n_layers = 2;
    c.dim = 64;
    c.n_heads = 4;
    c.n_kv_heads = 2;
    c.head_dim = 16;
    c.ffn_dim = 96;
    c.vocab_size = 320;
    c.context_length = 512;
    EXPECT_NO_THROW(c.validate());
    EXPECT_EQ(c.group_size(), 2);
    EXPECT_EQ(c.kv_dim(), 32);
    auto broken = [&](auto mutate, const char* msg) {
        ModelConfig b = c;
        mutate(b);
        EXPECT_FORMAT_ERROR(b.validate(), msg);
    };
    broken([](ModelConfig& b) { b.n_layers = 0; }, "n_layers is 0");
    broken([](ModelConfig& b) { b.dim = -1; }, "dim is -1");
    broken([](ModelConfig& b) { b.n_kv_heads = 3; }, "n_kv_heads (3) must divide n_heads (4)");
    broken([](ModelConfig& b) { b.n_kv_heads = 8; }, "n_kv_heads (8) must divide n_heads (4)");
    broken([](ModelConfig& b) { b.head_dim = 15; }, "head_dim (15) must be even");
    broken([](ModelConfig& b) { b.vocab_size = 0; }, "vocab_size");
    broken([](ModelConfig& b) { b.context_length = 0; }, "context_length");
    broken([](ModelConfig& b) { b.rope_theta = 0; }, "rope_theta");
    broken([](ModelConfig& b) { b.norm_eps = std::numeric_limits<float>::quiet_NaN(); }, "norm_eps");
    broken([](ModelConfig& b) { b.rope_scaling.factor = std::numeric_limits<float>::infinity(); }, "rope scaling factor");
    broken([](ModelConfig& b) { b.bos_id = 320; }, "bos_id (320)");
    broken([](ModelConfig& b) { b.dim = 1 << 30; }, "more than the supported");
    broken([](ModelConfig& b) { b.n_heads = 60000, b.n_kv_heads = 1, b.head_dim = 60000; }, "n_heads * head_dim");
    EXPECT_EQ(rope_style_name(RopeStyle::AdjacentPairs), "adjacent-pairs");
}

}  // namespace
}  // namespace snapdoc
