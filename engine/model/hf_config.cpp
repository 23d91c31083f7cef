#include "engine/model/hf_config.h"

#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/read_file.h"

namespace snapdoc {

namespace {

using nlohmann::json;

std::string json_kind(const json& v) {
    if (v.is_number_integer()) return "integer";
    if (v.is_number_float()) return "number";
    return v.type_name();
}

class ConfigReader {
public:
    ConfigReader(const json& root, std::string source) : root_(root), source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& what) const { throw FormatError(source_ + ": " + what); }

    // The value of a key, or nullptr when it is absent or null (HF writes null for "not set").
    const json* get(const char* key) const {
        auto it = root_.find(key);
        if (it == root_.end() || it->is_null()) return nullptr;
        return &*it;
    }

    int64_t as_int(const char* key, const json& v) const {
        if (v.is_number_unsigned()) {
            if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) out_of_range(key);
            return static_cast<int64_t>(v.get<uint64_t>());
        }
        if (v.is_number_integer()) return v.get<int64_t>();
        if (v.is_number_float()) {
            // Some exporters write 4096.0; accept integral values only.
            const double d = v.get<double>();
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
        }
        fail("key '" + std::string(key) + "' must be an integer, not " + json_kind(v) + " (" + v.dump() + ")");
    }

    int to_int(const char* key, int64_t v) const {
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) out_of_range(key);
        return static_cast<int>(v);
    }

    int required_int(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) fail("missing required key '" + std::string(key) + "'");
        return to_int(key, as_int(key, *v));
    }

    std::optional<int> optional_int(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        return to_int(key, as_int(key, *v));
    }

    std::optional<double> optional_number(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_number()) fail("key '" + std::string(key) + "' must be a number, not " + json_kind(*v));
        return v->get<double>();
    }

    std::optional<bool> optional_bool(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_boolean()) fail("key '" + std::string(key) + "' must be true or false, not " + json_kind(*v));
        return v->get<bool>();
    }

    std::optional<std::string> optional_string(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_string()) fail("key '" + std::string(key) + "' must be a string, not " + json_kind(*v));
        return v->get<std::string>();
    }

    // bos_token_id / eos_token_id: an int, a list of ints (the first is used) or null (-1: none).
    std::optional<int> token_id(const char* key) const {
        auto it = root_.find(key);
        if (it == root_.end()) return std::nullopt;
        if (it->is_null()) return -1;
        if (it->is_array()) {
            if (it->empty()) return -1;
            return to_int(key, as_int(key, it->front()));
        }
        return to_int(key, as_int(key, *it));
    }

private:
    [[noreturn]] void out_of_range(const char* key) const { fail("key '" + std::string(key) + "' is out of range"); }

    const json& root_;
    std::string source_;
};

float to_float(const ConfigReader& r, const char* key, double v) {
    if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max()) r.fail("key '" + std::string(key) + "' is out of range");
    return static_cast<float>(v);
}

}  // namespace

HfConfig parse_hf_config(std::string_view json_text, const std::string& source) {
    json root;
    try {
        root = json::parse(json_text.begin(), json_text.end());
    } catch (const json::exception& e) {
        throw FormatError(source + ": not valid JSON: " + e.what());
    }
    if (!root.is_object()) throw FormatError(source + ": not a JSON object");
    const ConfigReader r(root, source);

    HfConfig out;
    ModelConfig& c = out.config;

    // Architecture: the class name and/or model_type must say Llama or Mistral.
    bool mistral = false;
    const json* archs = r.get("architectures");
    const auto model_type = r.optional_string("model_type");
    if (archs == nullptr && !model_type) r.fail("missing key 'architectures' (or 'model_type')");
    if (archs != nullptr) {
        std::vector<std::string> names;
        if (archs->is_string()) {
            names.push_back(archs->get<std::string>());
        } else if (archs->is_array()) {
            for (const json& a : *archs) {
                if (!a.is_string()) r.fail("key 'architectures' must be a list of strings");
                names.push_back(a.get<std::string>());
            }
        } else {
            r.fail("key 'architectures' must be a list of strings, not " + json_kind(*archs));
        }
        bool supported = false;
        for (const auto& n : names) {
            if (n == "LlamaForCausalLM") supported = true;
            if (n == "MistralForCausalLM") supported = mistral = true;
        }
        if (!supported) {
            r.fail("architecture '" + (names.empty() ? std::string() : names.front()) +
                   "' is not supported (supported: LlamaForCausalLM, MistralForCausalLM)");
        }
    }
    if (model_type) {
        if (*model_type != "llama" && *model_type != "mistral") {
            r.fail("model_type '" + *model_type + "' is not supported (supported: llama, mistral)");
        }
        mistral = *model_type == "mistral";
    }
    c.architecture = mistral ? "mistral" : "llama";
    c.name = r.optional_string("_name_or_path").value_or("");

    if (const auto act = r.optional_string("hidden_act"); act && *act != "silu") {
        r.fail("hidden_act '" + *act + "' is not supported (supported: silu)");
    }
    if (r.optional_bool("attention_bias").value_or(false)) r.fail("attention_bias true is not supported (no bias terms)");
    if (r.optional_bool("mlp_bias").value_or(false)) r.fail("mlp_bias true is not supported (no bias terms)");

    c.dim = r.required_int("hidden_size");
    c.ffn_dim = r.required_int("intermediate_size");
    c.n_layers = r.required_int("num_hidden_layers");
    c.n_heads = r.required_int("num_attention_heads");
    c.n_kv_heads = r.optional_int("num_key_value_heads").value_or(c.n_heads);
    c.vocab_size = r.required_int("vocab_size");
    c.context_length = r.required_int("max_position_embeddings");
    const std::pair<const char*, int> positive[] = {
        {"hidden_size", c.dim},           {"intermediate_size", c.ffn_dim},   {"num_hidden_layers", c.n_layers},
        {"num_attention_heads", c.n_heads}, {"num_key_value_heads", c.n_kv_heads}, {"vocab_size", c.vocab_size},
        {"max_position_embeddings", c.context_length}};
    for (const auto& [key, v] : positive) {
        if (v <= 0) r.fail("key '" + std::string(key) + "' must be positive, not " + std::to_string(v));
    }
    if (c.n_heads % c.n_kv_heads != 0) {
        r.fail("num_key_value_heads (" + std::to_string(c.n_kv_heads) + ") does not divide num_attention_heads (" +
               std::to_string(c.n_heads) + ")");
    }
    if (const auto hd = r.optional_int("head_dim")) {
        c.head_dim = *hd;
    } else {
        if (c.dim % c.n_heads != 0) {
            r.fail("hidden_size (" + std::to_string(c.dim) + ") is not divisible by num_attention_heads (" +
                   std::to_string(c.n_heads) + ") and no head_dim is given");
        }
        c.head_dim = c.dim / c.n_heads;
    }
    if (c.head_dim <= 0 || c.head_dim % 2 != 0) {
        r.fail("head dimension " + std::to_string(c.head_dim) + " (head_dim, or hidden_size / num_attention_heads) must be positive and even");
    }

    // HF's LlamaConfig defaults.
    c.norm_eps = to_float(r, "rms_norm_eps", r.optional_number("rms_norm_eps").value_or(1e-6));
    c.rope_theta = to_float(r, "rope_theta", r.optional_number("rope_theta").value_or(10000.0));
    c.tied_embeddings = r.optional_bool("tie_word_embeddings").value_or(false);
    c.rope_style = RopeStyle::RotateHalf;

    if (const json* rs = r.get("rope_scaling")) {
        if (!rs->is_object()) r.fail("key 'rope_scaling' must be an object or null, not " + json_kind(*rs));
        const ConfigReader sr(*rs, source + " rope_scaling");
        auto type = sr.optional_string("type");
        if (!type) type = sr.optional_string("rope_type");
        if (!type) r.fail("key 'rope_scaling' has no 'type' (or 'rope_type')");
        if (*type == "linear") {
            const auto factor = sr.optional_number("factor");
            if (!factor) r.fail("rope_scaling of type 'linear' has no 'factor'");
            c.rope_linear_scale = to_float(r, "rope_scaling.factor", *factor);
        } else if (*type != "default") {
            r.fail("rope_scaling type '" + *type + "' is not supported (supported: linear)");
        }
    }

    if (const auto bos = r.token_id("bos_token_id")) c.bos_id = *bos;
    if (const auto eos = r.token_id("eos_token_id")) c.eos_id = *eos;
    if (const auto sw = r.optional_int("sliding_window"); sw && *sw > 0 && *sw < c.context_length) c.sliding_window = *sw;

    if (auto td = r.optional_string("torch_dtype")) {
        out.torch_dtype = *td;
    } else if (auto d = r.optional_string("dtype")) {  // newer transformers spell it "dtype"
        out.torch_dtype = *d;
    }

    try {
        c.validate();
    } catch (const FormatError& e) {
        throw FormatError(source + ": " + e.what());
    }
    return out;
}

HfConfig load_hf_config(const std::filesystem::path& config_json) {
    return parse_hf_config(read_small_file(config_json, std::size_t{16} << 20), config_json.string());
}

}  // namespace snapdoc
